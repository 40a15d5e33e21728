"""Helpers of the HTTP transport's tests (a module, not a conftest, so tests can import it)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


def pids_of(pidfile: Path, seconds: float = 10.0) -> list[int]:
    """The pids a fixture adapter wrote to ``pidfile`` (at least two), waiting at most
    ``seconds`` for them."""
    deadline = time.monotonic() + seconds
    while not pidfile.exists() or len(pidfile.read_text().split()) < 2:
        assert time.monotonic() < deadline, "the adapter never wrote its pids"
        time.sleep(0.02)
    return [int(p) for p in pidfile.read_text().split()]


@contextmanager
def launched_kit(script: str, command: str) -> Iterator[subprocess.Popen[str]]:
    """A kit process running ``script`` with the adapter ``command`` line as its argument,
    once it printed ``launched``; killed on the way out if it still runs."""
    kit = subprocess.Popen([sys.executable, "-c", script, command],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert kit.stdout is not None and kit.stdout.readline().strip() == "launched"
        yield kit
    finally:
        if kit.poll() is None:
            kit.kill()
            kit.wait()
