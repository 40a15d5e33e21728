"""The real Claude Code (pinned in adapters/claude-code/package.json) certifies from its model
traffic through adapters/claude-code with its baseline (docs/claude-code.md).

One ``subagent-tck certify`` run against ``cmd:python adapters/claude-code/server.py`` in the
``preset-composition`` edition with ``adapters/claude-code/baseline.toml`` must exit 0: every
rule passes, is not applicable, or is a listed Claude Code divergence (``expected-fail``), and
each baseline entry is needed (its rule fails in that run), so that without the baseline the
same command fails on exactly the listed rules; no more rules are not applicable than
docs/claude-code.md says. It certifies every rule but TF-09 (``RULES``; a run of selected rules
runs their checks without the fuzz campaign): TF-09's verdict on Claude Code has come out both
ways at the same seed (docs/claude-code.md#tf-09-timing), so the whole command of that page
judges it, never a CI gate that a timing can turn red.

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
from subagent_tck.spec import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "claude-code"
INSTALLED = ADAPTER / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
TIMEOUT = 3000
#: every rule of the catalogue but TF-09 (see the module docstring)
RULES = tuple(rule.id for rule in CATALOGUE if rule.id != "TF-09")
BASELINE = "adapters/claude-code/baseline.toml"
#: How many rules the certificate of the pinned Claude Code may find not applicable
#: (docs/claude-code.md "Which rules the model traffic can show").
NOT_APPLICABLE = 30  # 26 of the 53 rules before SP-01, SP-02, MO-01, MO-02, which it lacks


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
    not_applicable = {rule for (rule, _), outcome in cells.items()
                      if outcome == "not-applicable"}
    assert len(not_applicable) <= NOT_APPLICABLE, (
        f"{len(not_applicable)} rules not applicable, at most {NOT_APPLICABLE} expected "
        f"(docs/claude-code.md): {sorted(not_applicable)}")
