"""Assertion fingerprints (docs/baseline.md#the-fingerprint): what the normalisation keeps and
what it replaces, how the way of failing is read, and that a real check's failures at two seeds
are the same assertions where the target behaves the same."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from subagent_tck.conformance.core import fingerprint as fp
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.spec import PresentationMode

ROOT = Path(__file__).resolve().parents[2]


def test_what_varies_between_runs_is_replaced_and_the_rule_clause_dropped() -> None:
    message = ("request 2 of [tck:fr-child:417] carries N0123456789abcdef for agent "
               "3f2a9c1e-0b7d-4c5e-8f9a-0123456789ab (the rule: a child (any) is composed)")
    assert fp.normalise(message) == "request # of [tck:fr-child] carries «nonce» for agent «id»"


def test_a_fixed_case_keeps_its_literal_values() -> None:
    message = "installing the restriction {'allow': None}: accepted"
    assert fp.normalise(message) == message


@dataclass
class _State:
    globals: list[str]
    mode: PresentationMode


def test_a_drawn_case_names_values_by_their_role_and_collapses_brackets() -> None:
    state = _State(["Read_2", "mode", "run_code"], PresentationMode.PTC)
    roles = dict(fp._roles(state))
    message = ("a filter naming 'Read_2' and 'run_code' in mode ptc under {'allow': ['x']} "
               "(mode Read_2 and 'zz', [1, 2])")
    assert fp.normalise(message, drawn=True, roles=roles) == (
        "a filter naming «globals» and 'run_code' in mode «mode» under {…} "
        "(mode «globals» and '…', […])")


def test_a_mode_drawn_as_its_string_is_the_states_too() -> None:
    roles = dict(fp._roles({"globals": ["a1"], "mode": "both"}))
    assert fp.normalise("the view once 'a1' is gone (mode both)", drawn=True, roles=roles) == (
        "the view once «globals» is gone (mode «mode»)")


def test_an_apostrophe_inside_a_word_is_no_quote() -> None:
    assert fp.normalise("the parent's view of 'abc' and the child's", drawn=True) == (
        "the parent's view of '…' and the child's")


@pytest.mark.parametrize(("expected", "observed", "error", "message", "way"), [
    ("INVALID_TOOL_FILTER", {"code": "SETUP_FAILED", "message": "m"}, False, "x",
     "refused SETUP_FAILED"),
    ("INVALID_TEMPLATE or SETUP_FAILED", {"agent": "a"}, False, "x", "accepted"),
    ("accepted", {"isError": False}, False, "x", "differs"),
    (None, {"code": "TIMEOUT", "message": "slow"}, True, "x", "timeout"),
    (None, {"code": "PROTOCOL_ERROR", "message": "m"}, True, "x", "error PROTOCOL_ERROR"),
    (None, None, True, "check c did not finish within 30 s", "timeout"),
    (None, None, True, "the check crashed: KeyError", "crashed"),
    (None, None, True, "something", "error"),
    (["a", "b"], ["a"], False, "x", "differs: missing"),
    (["a"], ["a", "c"], False, "x", "differs: extra"),
    (["a"], ["c"], False, "x", "differs: missing and extra"),
    (["a", "b"], ["b", "a"], False, "x", "differs: order"),
    (["a"], ["a", "a"], False, "x", "differs: count"),
    ({"isError": True, "ran": False}, {"isError": True, "ran": True, "agent-7": 1}, False,
     "x", "differs: agent-#, ran"),
    ("text", "other text", False, "x", "differs"),
])
def test_the_way_an_assertion_failed(expected: object, observed: object, error: bool,
                                     message: str, way: str) -> None:
    assert fp.make("TF-01", "c", message, expected, observed, error=error).way == way


def test_the_fingerprint_changes_with_each_part_and_only_with_them() -> None:
    one = fp.make("TF-01", "c", "m 1", ["a"], ["b"], error=False)
    assert fp.make("TF-01", "c", "m 2", ["x"], ["y"], error=False) == one
    assert len(one.fingerprint) == 12
    others = [fp.make("TF-02", "c", "m", ["a"], ["b"], error=False),
              fp.make("TF-01", "d", "m", ["a"], ["b"], error=False),
              fp.make("TF-01", "c", "n", ["a"], ["b"], error=False),
              fp.make("TF-01", "c", "m", ["a"], ["a", "b"], error=False),
              fp.make("TF-01", "c", "m", "a", ["b"], error=False),
              fp.make("TF-01", "c", "m", ["a"], ["b"], error=False, case="drawn")]
    assert len({o.fingerprint for o in others} | {one.fingerprint}) == 7
    assert fp.make("TF-01", "c", "m: refused: secret", None, None, error=True,
                   key="m").what == "m"


def test_a_real_checks_failures_are_the_same_assertions_at_two_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The zoo's first_offender_only breaks TF-08: its fixed and drawn cases fail at seeds 0
    and 7 with other drawn names, and every failure is the same assertion at both."""
    monkeypatch.syspath_prepend(str(ROOT))
    spec = "python:examples.providers.first_offender_only:provider"
    found = []
    for seed in (0, 7):
        target = load_target(spec)
        try:
            cert = certify(target, RunConfig(target_spec=spec, rules=("TF-08",), seed=seed))
        finally:
            target.close()
        failures = cert.rule("TF-08").failures
        assert failures and {f.example is not None for f in failures} == {True, False}
        found.append({f.assertion.fingerprint for f in failures if f.assertion})
    assert found[0] == found[1]
