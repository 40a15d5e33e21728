"""The real Claude Code (pinned in adapters/claude-code/package.json) certifies from its model
traffic through adapters/claude-code with its baseline (docs/claude-code.md).

One ``subagent-tck certify`` run against ``cmd:python adapters/claude-code/server.py`` in the
``preset-composition`` edition with ``adapters/claude-code/baseline.toml`` must exit 0: every
rule passes, is not applicable, or is a listed Claude Code divergence (``expected-fail``), and
each baseline entry for a selected rule is needed (its rule fails in that run), so that
without the baseline the same command fails on exactly the listed rules. In CI it certifies a
selection of rules (``RULES``: passing and listed ones of each family that needs no nested
chain, about two minutes; the nested chains are
tests/http/test_claude_code_nested.py's): the whole run is 4 to 7 minutes with two jobs, and
on a CI machine whose other slot runs the per-Python suites its verdicts moved with the load
(TF-09's: docs/claude-code.md#tf-09-timing; TF-01 and TF-08 once came out not applicable), so
the whole command of that page is what judges every rule.

Claude Code is installed here when it is not yet (``npm ci`` in adapters/claude-code, under a
lock so parallel runs install once). That needs the npm registry: when it cannot be reached the
test fails, loudly, with npm's own words and the command to retry; it never skips. Nothing the
runs start leaves loopback: Claude Code's model is the adapter's endpoint on 127.0.0.1, with
``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from npm_install import ensure_installed

from subagent_tck.conformance.core.baseline import load_baseline

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "claude-code"
INSTALLED = ADAPTER / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
TIMEOUT = 3000
#: passing (CA-01, CA-05, EN-02, PE-04, MO-02) and listed (EN-01, FR-02, PE-01, PE-03, MO-01:
#: a retired model's id is remapped) rules whose checks start few `claude -p` runs (--timings
#: of a whole run); MO's ran 75 s
RULES = ("CA-01", "CA-05", "EN-01", "EN-02", "FR-02", "PE-01", "PE-03", "PE-04", "MO-01",
         "MO-02")
BASELINE = "adapters/claude-code/baseline.toml"


def _npm_ci() -> None:
    """Install Claude Code once (``npm ci``), failing with npm's answer when it cannot."""
    ensure_installed(ADAPTER, timeout=TIMEOUT)
    if not INSTALLED.is_file():
        pytest.fail(f"`npm ci` in adapters/claude-code left no {INSTALLED.name}: Claude Code's "
                    "install script did not run; retry `cd adapters/claude-code && npm ci`")


def _certify(output: Path, *, baseline: bool = True) -> subprocess.CompletedProcess[str]:
    _npm_ci()
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify",
               "--target", f"cmd:{sys.executable} adapters/claude-code/server.py",
               "--edition", "preset-composition", "--seed", "0",
               # a check makes dozens of `claude -p` runs of 1 to 3 s each (more beside other
               # work: docs/claude-code.md)
               "--timeout", "600", "--deadline", "2400",
               *(["--baseline", BASELINE] if baseline else []),
               *(arg for rule in RULES for arg in ("--rule", rule)),
               "--format", "json", "--output", str(output)]
    started = time.monotonic()
    try:
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                                timeout=TIMEOUT, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"certify did not finish within {TIMEOUT} s:\n{exc.stdout!s}\n{exc.stderr!s}")
    print(f"certify of Claude Code took {time.monotonic() - started:.1f} s")  # the figure
    assert not _left_running(), f"left running after certify: {_left_running()}"
    return result


def _left_running() -> list[str]:
    """The ``claude`` processes of this checkout's install, and the kit's MCP servers of its
    deployments, still running (the adapter kills each run's process group; nothing of a
    chain of nested children may outlive its run)."""
    mine = str(ADAPTER / "node_modules")
    left = []
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        if mine in command or ("mcp_echo" in command and "tck-claude-" in command):
            left.append(f"{process.pid}: {command[:200]}")
    return left


def _cells(certificate: dict[str, Any]) -> dict[tuple[str, str | None], str]:
    return {(rule["id"], cell["provider"]): cell["outcome"]
            for rule in certificate["rules"] if rule["id"] in RULES
            for cell in rule["providers"]}


def _tail(result: subprocess.CompletedProcess[str]) -> str:
    return "\n".join((result.stdout + "\n" + result.stderr).splitlines()[-40:])


def test_claude_code_certifies_with_its_baseline_and_fails_without_it_on_exactly_its_entries(
        tmp_path: Path) -> None:
    """One run with the baseline (a certify of Claude Code is several minutes: it is not run
    twice): it exits 0, every outcome is a pass, not applicable or a listed divergence, and
    every entry is needed. The baseline only relabels the failures it lists, so the same run
    without it would fail (exit 1) on exactly those rules and no other."""
    output = tmp_path / "claude-code.json"
    result = _certify(output)
    assert output.is_file(), f"certify wrote no certificate (exit {result.returncode}):\n" \
        f"{_tail(result)}"
    cells = _cells(json.loads(output.read_text(encoding="utf-8")))
    bad = {cell for cell, outcome in cells.items()
           if outcome not in ("pass", "not-applicable", "expected-fail")}
    assert not bad, f"unexpected outcomes {sorted(bad, key=str)}:\n{_tail(result)}"
    assert result.returncode == 0, f"certify exited {result.returncode}:\n{_tail(result)}"
    listed = {entry.rule for entry in load_baseline(ROOT / BASELINE).entries} & set(RULES)
    expected = {rule for (rule, _), outcome in cells.items() if outcome == "expected-fail"}
    assert listed == expected, (f"baseline entries whose rule did not fail: {listed - expected};"
                                f" failing rules it does not list: {expected - listed}")
    assert {rule for (rule, _), outcome in cells.items() if outcome == "pass"} == {
        "CA-01", "CA-05", "EN-02", "PE-04", "MO-02"}, cells
