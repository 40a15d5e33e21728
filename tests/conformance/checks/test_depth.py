"""The DE checks: they pass on the reference target (every provider, both editions) and refuse
to pass vacuously (tiny runner, tests/conformance/checks/tiny_runner.py); each zoo entry that
breaks their rule fails it and nothing else of the family (test_zoo_families.py)."""

from __future__ import annotations

import math

from subagent_tck.conformance.engine.checks._depth_driver import codes, overflows
from subagent_tck.conformance.engine.checks._depth_values import MAX, TABLE
from subagent_tck.spec import ABSENT, ErrorCode, StartOutcome, check_depth

from .tiny_runner import reference_passes

DE_RULES = {f"DE-{n:02d}" for n in range(1, 11)}
CAP_RULES = {"DE-03", "DE-04", "DE-05", "DE-09"}
DEPTH_CHECKS = ("depth", "depth_domains", "depth_limits")


def test_every_depth_check_passes_on_the_reference_for_every_provider() -> None:
    passed = reference_passes(*DEPTH_CHECKS, max_examples=3).passed()
    for provider in ("spawn", "fork"):
        assert {rule for rule, p in passed if p == provider} == DE_RULES
    assert {rule for rule, p in passed if p == "acp"} == DE_RULES - CAP_RULES


def test_the_domain_table_holds_what_rules_md_lists_with_the_oracle_verdicts() -> None:
    verdicts = {label: check_depth(value) for label, value in TABLE}
    assert {label for label, v in verdicts.items() if v.ok} == {"JSON 1.0", "JSON 1e2", "2^53-1"}
    assert verdicts["JSON 1e2"].value == 100
    assert math.copysign(1.0, dict(TABLE)["JSON -0"]) < 0  # read as negative zero
    assert dict(TABLE)["JSON 9007199254740993"] == 2**53


def test_a_non_finite_value_may_also_be_refused_as_a_malformed_request() -> None:
    outcome = StartOutcome()
    assert codes(outcome, float("nan")) == {ErrorCode.INVALID_REQUEST}
    assert codes(outcome, 3) == set()


def test_only_a_parent_at_the_top_of_the_domain_overflows() -> None:
    assert overflows(MAX, ABSENT)
    assert overflows(0, MAX)
    assert not overflows(MAX - 1, ABSENT)
    assert not overflows(MAX, -1)  # a bad runtime depth is DE-07's refusal
