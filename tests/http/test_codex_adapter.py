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

from pathlib import Path

from npm_install import ensure_installed
from runtime_selection import certify_selection, left_running

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "codex"
BASELINE = "adapters/codex/baseline.toml"
TIMEOUT = 600
#: The selected rules and the outcome each must have.
RULES = {"CA-04": "expected-fail", "EN-02": "pass", "CA-05": "pass"}


def test_codex_certifies_its_selected_rules_with_its_baseline_and_each_entry_is_needed(
        tmp_path: Path) -> None:
    ensure_installed(ADAPTER, timeout=TIMEOUT)
    # a check makes a few `codex exec` runs of 1 to 3 s each
    run = certify_selection("Codex", "adapters/codex/server.py", RULES, tmp_path / "codex.json",
                            timeout=TIMEOUT, check_timeout=180, deadline=500, baseline=BASELINE,
                            left=lambda: left_running(ADAPTER))
    outcomes = {rule: {o for (r, _), o in run.cells.items() if r == rule} for rule in RULES}
    assert outcomes == {rule: {outcome} for rule, outcome in RULES.items()}, run.tail
    assert run.result.returncode == 0, f"certify exited {run.result.returncode}:\n{run.tail}"
    assert run.listed(BASELINE) == {rule for rule, outcome in RULES.items()
                                    if outcome == "expected-fail"}
