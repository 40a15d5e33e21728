"""The real Codex CLI (pinned in adapters/codex/package.json) certifies from its model traffic
through adapters/codex with its baseline (docs/codex.md).

One partial ``subagent-tck certify`` run (``--rule``) against
``cmd:python adapters/codex/server.py`` in the ``preset-composition`` edition with
``adapters/codex/baseline.toml``, on the rules that say the most per second: CA-04 (the provider
advertises ``toolFilter``, and a custom agent file's filter is not applied: the headline of
docs/codex.md, a listed divergence, seen in a real child's requests), EN-02 and CA-05 (refusals
that hold). It must exit 0; the listed rule must be ``expected-fail`` (at a fixed seed that is the
same as "without the baseline the run fails on exactly it"), the others must pass, and every
baseline entry of a selected rule must be needed. The whole certificate, rule by rule, is in
docs/codex.md; this test runs once in CI (tests/conftest.py RUNTIMES), so it stays short.

Codex is installed when it is not yet (``npm ci`` in adapters/codex, under a lock). That needs
the npm registry: when it cannot be reached the test fails, loudly, with npm's own words; it
never skips. Nothing the run starts leaves loopback: every ``codex exec`` has the adapter's
endpoint on 127.0.0.1 as its only model provider, no update check, plugins or apps
(docs/codex.md "What keeps Codex offline").
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from npm_install import ensure_installed

from subagent_tck.conformance.core.baseline import load_baseline

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "codex"
BASELINE = "adapters/codex/baseline.toml"
TIMEOUT = 600
#: The selected rules and the outcome each must have.
RULES = {"CA-04": "expected-fail", "EN-02": "pass", "CA-05": "pass"}


def test_codex_certifies_its_selected_rules_with_its_baseline_and_each_entry_is_needed(
        tmp_path: Path) -> None:
    ensure_installed(ADAPTER, timeout=TIMEOUT)
    output = tmp_path / "codex.json"
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify",
               "--target", f"cmd:{sys.executable} adapters/codex/server.py",
               "--edition", "preset-composition", "--seed", "0",
               *(arg for rule in RULES for arg in ("--rule", rule)),
               # a check makes a few `codex exec` runs of 1 to 3 s each
               "--timeout", "180", "--deadline", "500", "--baseline", BASELINE,
               "--format", "json", "--output", str(output)]
    started = time.monotonic()
    try:
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                                timeout=TIMEOUT, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"certify did not finish within {TIMEOUT} s:\n{exc.stdout!s}\n{exc.stderr!s}")
    print(f"certify of Codex took {time.monotonic() - started:.1f} s")  # the figure
    assert not _left(), f"codex left running: {_left()}"
    tail = "\n".join((result.stdout + "\n" + result.stderr).splitlines()[-40:])
    assert output.is_file(), f"certify wrote no certificate (exit {result.returncode}):\n{tail}"
    certificate = json.loads(output.read_text(encoding="utf-8"))
    cells = {(rule["id"], cell["provider"]): cell["outcome"]
             for rule in certificate["rules"] for cell in rule["providers"]}
    outcomes = {rule: {o for (r, _), o in cells.items() if r == rule} for rule in RULES}
    assert outcomes == {rule: {outcome} for rule, outcome in RULES.items()}, tail
    assert result.returncode == 0, f"certify exited {result.returncode}:\n{tail}"
    listed = {entry.rule for entry in load_baseline(ROOT / BASELINE).entries} & set(RULES)
    assert listed == {rule for rule, outcome in RULES.items() if outcome == "expected-fail"}


def _left() -> list[str]:
    """The processes this checkout's Codex started still running (the adapter's cleanup, and the
    kit's of the adapter's process family, must have stopped every one)."""
    mine = str(ADAPTER / "node_modules")
    left = []
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        if mine in command:
            left.append(f"{process.pid}: {command[:200]}")
    return left
