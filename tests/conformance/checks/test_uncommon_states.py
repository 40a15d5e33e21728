"""The checks of states the other checks never build (conformance/engine/checks/uncommon_states.py):
the reference passes them, and each fails the zoo entry it was written for, at two seeds and in
every edition the rule covers."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import Edition

ROOT = Path(__file__).resolve().parents[3]

#: zoo entry -> (its rule, the check of uncommon_states that must catch it)
ENTRIES = {
    "filter_checked_against_parent_view": ("TF-08", "tool-filter-beyond-the-parent-view"),
    "resume_rederives_depth": ("DE-09", "depth-resume-keeps-a-deeper-header"),
    "empty_variable_left_raw": ("PE-05", "persona-empty-variable"),
}
#: each entry at two seeds in the default edition; the filter also as a request's control
CASES = [(name, seed, None) for name in ENTRIES for seed in (0, 7)] + [
    ("filter_checked_against_parent_view", 0, Edition.REQUEST_CONTROLS)]


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    yield ROOT


@pytest.mark.parametrize(("rule", "edition"), [
    (rule, edition) for rule, _ in ENTRIES.values() for edition in Edition])
def test_the_reference_passes_the_checks_of_uncommon_states(rule: str, edition: Edition) -> None:
    target = reference_target()
    try:
        cert = certify(target, RunConfig(target_spec="reference", rules=(rule,), seed=3,
                                         edition=edition))
    finally:
        target.close()
    assert cert.rule(rule).outcome == Outcome.PASS, [f.message for f in cert.rule(rule).failures]


@pytest.mark.parametrize(("name", "seed", "edition"), CASES)
def test_a_check_of_an_uncommon_state_fails_the_entry_that_needs_that_state(
    at_root: Path, name: str, seed: int, edition: Edition | None,
) -> None:
    rule, check = ENTRIES[name]
    target = importlib.import_module(f"examples.providers.{name}").provider()
    try:
        cert = certify(target, RunConfig(target_spec=name, rules=(rule,), seed=seed,
                                         edition=edition))
    finally:
        target.close()
    failures = cert.rule(rule).failures
    assert cert.rule(rule).outcome == Outcome.FAIL, name
    assert check in {f.check for f in failures}, sorted({f.check for f in failures})
    mine = next(f for f in failures if f.check == check)
    assert mine.example, "the drawn state is shown"


def test_each_check_of_an_uncommon_state_cites_only_the_rule_it_judges() -> None:
    from subagent_tck.conformance.engine.checks import load_checks

    checks = load_checks()
    for rule, check in ENTRIES.values():
        assert checks[check].rules == (rule,)
