"""The CA checks: they pass on the reference target, apply to the providers they can exercise
(refusals to ``acp``, effects to ``spawn`` and ``fork``) (tiny runner,
tests/conformance/checks/tiny_runner.py); each zoo entry that breaks their rule fails it
(test_zoo_families.py)."""

from __future__ import annotations

import pytest

from subagent_tck.conformance.engine.checks._gating_routes import PRESET, REQUEST, named, routes
from subagent_tck.spec import Capability, Edition, ErrorCode, TckError

from .tiny_runner import checks_of, reference_passes, run
from .zoo_cases import entry, judge


def test_every_gating_check_passes_on_the_reference_in_both_editions() -> None:
    verdicts = reference_passes("gating", max_examples=3)
    outcomes = {(rule, provider): outcome
                for (rule, provider, _), outcome in verdicts.outcomes.items()}
    for rule in ("CA-01", "CA-02", "CA-03"):
        assert outcomes[rule, "acp"] == "pass"
        assert outcomes[rule, "spawn"] == "n/a"  # spawn advertises every control
    assert outcomes["CA-04", "spawn"] == "pass"
    assert outcomes["CA-04", "acp"] == "n/a"  # acp advertises none
    assert outcomes["CA-05", None] == "pass"


def test_gating_checks_judge_each_provider_of_a_mixed_target_on_its_own() -> None:
    verdicts = run(entry("fewer_capabilities").provider(), checks_of("gating"), max_examples=2)
    assert not verdicts.bad(), verdicts.explain()
    passed = verdicts.passed()
    assert {("CA-01", "spawn"), ("CA-04", "spawn"), ("CA-01", "fork"), ("CA-04", "fork")} <= passed


def test_a_capability_is_read_from_the_details_first_then_from_the_message() -> None:
    detailed = TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "no persona",
                        {"capability": "toolFilter"})
    assert named(detailed) == ({"toolFilter"}, True)
    plain = TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "acp does not advertise depthLimit")
    assert named(plain) == ({"depthLimit"}, False)


def test_a_message_names_a_capability_by_its_request_field_as_a_whole_word() -> None:
    by_field = TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "acp cannot honour maxDepth")
    assert named(by_field) == ({"depthLimit"}, False)
    inside = TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "acp refused: maxDepthX, toolFilters")
    assert named(inside) == (set(), False)
    # The provider's own name names nothing (a provider called persona-only).
    own = TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "persona-only cannot honour toolFilter")
    assert named(own, "persona-only") == ({"toolFilter"}, False)


def test_a_refusal_in_prose_that_also_lists_what_the_provider_offers_passes_ca_01() -> None:
    """CA-01 asks that the refusal name the capability, not that it name nothing else."""
    _, verdicts = judge("capability_refusal_in_prose", "CA")
    assert not verdicts.bad(), verdicts.explain()
    assert {rule for rule, _ in verdicts.passed()} >= {"CA-01", "CA-03"}


def test_a_refusal_in_prose_that_names_another_control_fails_ca_01(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = entry("capability_refusal_in_prose")
    caps = list(module.FIELD)
    wrong = {cap: module.FIELD[caps[(i + 1) % len(caps)]] for i, cap in enumerate(caps)}
    monkeypatch.setattr(module, "FIELD", wrong)  # each refusal names the next control
    _, verdicts = judge("capability_refusal_in_prose", "CA")
    failures = [f for f in verdicts.failures if f.rule == "CA-01"]
    assert failures, verdicts.explain()
    assert all("naming the capability" in f.message for f in failures if not f.error)


def test_request_routes_follow_the_edition() -> None:
    preset_only = Edition.PRESET_COMPOSITION
    assert routes(preset_only, Capability.PERSONA) == [PRESET]
    assert routes(preset_only, Capability.DEPTH_LIMIT) == [REQUEST]
    # A request-controls start names no preset (docs/rules.md#editions), so no preset route.
    assert routes(Edition.REQUEST_CONTROLS, Capability.TOOL_FILTER) == [REQUEST]
    assert routes(Edition.REQUEST_CONTROLS, Capability.OUTPUT_SCHEMA) == [REQUEST]
    assert routes(preset_only, Capability.OUTPUT_SCHEMA) == [REQUEST, PRESET]
