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

from pathlib import Path

from npm_install import ensure_installed
from runtime_selection import certify_selection, left_running

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "opencode"
BASELINE = "adapters/opencode/baseline.toml"
#: rules whose checks start opencode least often (--timings of a whole run), passing and listed
#: (ST-06 and ST-08, judged on task, 19 s together)
RULES = ("CA-04", "CA-05", "EN-01", "EN-02", "FR-05", "PE-03", "ST-06", "ST-08")
TIMEOUT = 3000


def test_opencode_certifies_with_its_baseline_and_every_entry_is_needed(tmp_path: Path) -> None:
    ensure_installed(ADAPTER, timeout=TIMEOUT, clean=False)
    # a check makes dozens of opencode sessions of 1 to 4 s each, through every restriction
    # channel the adapter declares (docs/opencode.md)
    run = certify_selection("opencode", "adapters/opencode/server.py", RULES,
                            tmp_path / "opencode.json", timeout=TIMEOUT, check_timeout=600,
                            deadline=2800, baseline=BASELINE,
                            left=lambda: left_running(ADAPTER, only="serve"))
    run.assert_settled()
    assert run.certificate["target_tools"] == ["task"], run.certificate["target_tools"]
    listed, expected = run.listed(BASELINE), run.rules("expected-fail")
    assert listed == expected, f"baseline entries whose rule did not fail: {listed - expected}"
    assert run.rules("pass"), "nothing passed: the run judged nothing"
