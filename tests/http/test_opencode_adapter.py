"""The real opencode (pinned in adapters/opencode/package.json) certifies from its model traffic
through adapters/opencode with its baseline (docs/opencode.md).

A whole certify run of opencode takes about 25 minutes here since the kit builds the tool-filter
cases through every restriction channel it declares (docs/opencode.md); this test runs once in
CI, so it certifies a selection of rules (``RULES``) whose checks need few opencode sessions and
still proves the point end to end: opencode is installed by the project's own files, answers the
kit's scripted starts offline, passes rules (CA-04, CA-05, EN-02), and fails exactly the selected
rules its baseline lists (EN-01, FR-05, PE-03: what opencode does with an agent's prompt). One
``subagent-tck certify --rule ...`` run against ``cmd:python adapters/opencode/server.py`` in the
``preset-composition`` edition with ``adapters/opencode/baseline.toml`` must exit 0, every
selected rule passing, not applicable, or a listed opencode divergence (``expected-fail``), and
every entry for a selected rule must be needed: its rule fails in that run. At a fixed seed that
is the same as "without the baseline the run fails on exactly the listed rules", so one run says
both. The whole certificate is the command of docs/opencode.md.

opencode is installed when it is not yet (``npm install`` in adapters/opencode, under a lock:
``npm ci`` refuses this lock, docs/opencode.md "Running it"). That needs the npm registry: when
it cannot be reached the test fails, loudly, with npm's own words; it never skips. Nothing the
run starts leaves loopback: every ``opencode serve`` has the adapter's endpoint on 127.0.0.1 as
its only model provider and opencode's and npm's offline switches set.
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
ADAPTER = ROOT / "adapters" / "opencode"
BASELINE = "adapters/opencode/baseline.toml"
#: rules whose checks start opencode least often (--timings of a whole run), passing and listed
RULES = ("CA-04", "CA-05", "EN-01", "EN-02", "FR-05", "PE-03")
TIMEOUT = 3000


def test_opencode_certifies_with_its_baseline_and_every_entry_is_needed(tmp_path: Path) -> None:
    ensure_installed(ADAPTER, timeout=TIMEOUT, clean=False)
    output = tmp_path / "opencode.json"
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify",
               "--target", f"cmd:{sys.executable} adapters/opencode/server.py",
               "--edition", "preset-composition", "--seed", "0",
               # a check makes dozens of opencode sessions of 1 to 4 s each, through every
               # restriction channel the adapter declares (docs/opencode.md)
               "--timeout", "600", "--deadline", "2800", "--baseline", BASELINE,
               *(arg for rule in RULES for arg in ("--rule", rule)),
               "--format", "json", "--output", str(output)]
    started = time.monotonic()
    try:
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                                timeout=TIMEOUT, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"certify did not finish within {TIMEOUT} s:\n{exc.stdout!s}\n{exc.stderr!s}")
    print(f"certify of opencode took {time.monotonic() - started:.1f} s")  # the figure
    assert not _servers_left(), f"opencode serve left running: {_servers_left()}"
    tail = "\n".join((result.stdout + "\n" + result.stderr).splitlines()[-40:])
    assert output.is_file(), f"certify wrote no certificate (exit {result.returncode}):\n{tail}"
    certificate = json.loads(output.read_text(encoding="utf-8"))
    cells = {(rule["id"], cell["provider"]): cell["outcome"]
             for rule in certificate["rules"] if rule["id"] in RULES
             for cell in rule["providers"]}
    bad = {cell for cell, outcome in cells.items()
           if outcome not in ("pass", "not-applicable", "expected-fail")}
    assert not bad, f"unexpected outcomes {sorted(bad, key=str)}:\n{tail}"
    assert result.returncode == 0, f"certify exited {result.returncode}:\n{tail}"
    assert certificate["target_tools"] == ["task"], certificate["target_tools"]
    listed = {entry.rule for entry in load_baseline(ROOT / BASELINE).entries} & set(RULES)
    expected = {rule for (rule, _), outcome in cells.items() if outcome == "expected-fail"}
    assert listed == expected, f"baseline entries whose rule did not fail: {listed - expected}"
    assert {rule for (rule, _), outcome in cells.items() if outcome == "pass"}, \
        "nothing passed: the run judged nothing"


def _servers_left() -> list[str]:
    """The ``opencode serve`` processes of this checkout still running (the adapter's cleanup,
    and the kit's of the adapter's process family, must have stopped every one)."""
    mine = str(ADAPTER / "node_modules")
    left = []
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        if mine in command and " serve " in f"{command} ":
            left.append(f"{process.pid}: {command[:200]}")
    return left
