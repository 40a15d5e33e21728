"""Helpers of the HTTP transport's tests (a module, not a conftest, so tests can import it)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

FIXTURES = Path(__file__).with_name("fixtures")


def adapter_command(mode: str, *args: str, script: str = "broken_adapter.py") -> str:
    """The ``cmd:`` command line of a fixture adapter (fixtures/broken_adapter.py unless
    ``script`` names another one)."""
    return shlex.join([sys.executable, str(FIXTURES / script), mode, *args])


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie no longer runs)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


def gone_within(pids: list[int], seconds: float = 5.0) -> bool:
    """True once none of ``pids`` runs, waiting at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
