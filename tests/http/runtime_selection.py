"""A certify of a real runtime's adapter on a selection of rules, as its user runs it (a helper
of the runtime tests: tests/http/test_*_adapter.py).

Each runtime's test picks the rules whose checks start the runtime least often, certifies them
with the adapter's baseline in a fresh ``subagent-tck certify`` process, and judges the
certificate: :func:`certify_selection` runs it and reads the certificate back,
:func:`left_running` names what the runtime left behind.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from subagent_tck.conformance.core.baseline import load_baseline

ROOT = Path(__file__).resolve().parents[2]
#: the outcomes a run with a baseline may have: anything else is a failure of the test
SETTLED = ("pass", "not-applicable", "expected-fail")


def printed_tail(result: subprocess.CompletedProcess[str], lines: int = 40) -> str:
    """The last ``lines`` lines of what a process printed, for a failure message."""
    return "\n".join((result.stdout + "\n" + result.stderr).splitlines()[-lines:])


@dataclass(frozen=True)
class Selection:
    """A finished certify of a selection: its process, its certificate, and each selected
    rule's outcome per provider."""

    result: subprocess.CompletedProcess[str]
    certificate: dict[str, Any]
    cells: dict[tuple[str, str | None], str]
    selected: frozenset[str]

    @property
    def tail(self) -> str:
        """The last 40 lines of what certify printed, for a failure message."""
        return printed_tail(self.result)

    def rules(self, outcome: str) -> set[str]:
        """The selected rules with ``outcome`` for some provider."""
        return {rule for (rule, _), found in self.cells.items() if found == outcome}

    def assert_settled(self) -> None:
        """Every outcome is a pass, not applicable or a listed divergence, and certify exited
        0."""
        bad = {cell for cell, outcome in self.cells.items() if outcome not in SETTLED}
        assert not bad, f"unexpected outcomes {sorted(bad, key=str)}:\n{self.tail}"
        assert self.result.returncode == 0, \
            f"certify exited {self.result.returncode}:\n{self.tail}"

    def listed(self, baseline: str) -> set[str]:
        """The selected rules the baseline file ``baseline`` has an entry for."""
        return {entry.rule for entry in load_baseline(ROOT / baseline).entries} & self.selected


def certify_selection(runtime: str, server: str, rules: Collection[str], output: Path, *,
                      timeout: float, check_timeout: int, deadline: int,
                      baseline: str | None, left: Callable[[], list[str]]) -> Selection:
    """Certify ``cmd:python SERVER`` (preset-composition, seed 0) on ``rules`` with
    ``baseline``, each check given ``check_timeout`` s and the run ``deadline`` s, the process
    ``timeout`` s; print how long it took (the figure); fail the test when it overran, when
    ``left`` names processes still running after it, or when it wrote no certificate."""
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify",
               "--target", f"cmd:{sys.executable} {server}",
               "--edition", "preset-composition", "--seed", "0",
               "--timeout", str(check_timeout), "--deadline", str(deadline),
               *(["--baseline", baseline] if baseline else []),
               *(arg for rule in rules for arg in ("--rule", rule)),
               "--format", "json", "--output", str(output)]
    started = time.monotonic()
    try:
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                                timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"certify did not finish within {timeout} s:\n{exc.stdout!s}\n{exc.stderr!s}")
    print(f"certify of {runtime} took {time.monotonic() - started:.1f} s")  # the figure
    assert not left(), f"left running after certify: {left()}"
    if not output.is_file():
        pytest.fail(f"certify wrote no certificate (exit {result.returncode}):\n"
                    f"{printed_tail(result)}")
    certificate = json.loads(output.read_text(encoding="utf-8"))
    cells = {(rule["id"], cell["provider"]): cell["outcome"]
             for rule in certificate["rules"] if rule["id"] in rules
             for cell in rule["providers"]}
    return Selection(result, certificate, cells, frozenset(rules))


def left_running(adapter: Path, also: Sequence[str] = (), *,
                 only: str | None = None) -> list[str]:
    """The processes of the runtime installed under ``adapter/node_modules`` still running, and
    any whose command line holds every word of ``also`` (the kit's helpers a runtime started);
    ``only``: of the runtime's, just those whose command line holds it as a word."""
    mine = str(adapter / "node_modules")
    found = []
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        ours = mine in command and (only is None or f" {only} " in f" {command} ")
        if ours or (also and all(word in command for word in also)):
            found.append(f"{process.pid}: {command[:200]}")
    return found
