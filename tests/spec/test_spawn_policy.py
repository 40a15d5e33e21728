"""Spawn policies (spec/spawn_policy.py, spec/restriction.py): validation at installation,
admission, the start oracle's SPAWN_DENIED and what a delegation tool may name."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.spec import (
    CONTROLS,
    Capability,
    Edition,
    ErrorCode,
    Preset,
    Restriction,
    StartState,
    admits_preset,
    decide_start,
    named_refused,
    offered_text,
    parse_policies,
    refused_presets,
    validate_spawn_policy,
    words,
)

PRESETS = {"reviewer": Preset(), "Reviewer": Preset(), "writer": Preset()}
FAST = settings(max_examples=80, deadline=None)


def state(policies: list[Restriction] | None = None, **overrides: Any) -> StartState:
    base: dict[str, Any] = {
        "edition": Edition.PRESET_COMPOSITION,
        "providers": {"spawn": list(CONTROLS), "acp": []},
        "presets": PRESETS,
        "parent_policies": policies or [],
    }
    base.update(overrides)
    return StartState(**base)


@pytest.mark.parametrize(("policy", "offending"), [
    ({"allow": ["reviewer", "editor"]}, ["editor"]),
    ({"deny": ["REVIEWER", "writer", "Writer", "REVIEWER"]}, ["REVIEWER", "Writer"]),
    ({"allow": ["reviewer"], "deny": ["critic"]}, ["critic"]),
])
def test_a_policy_naming_presets_the_deployment_lacks_lists_every_one(
    policy: dict[str, list[str]], offending: list[str],
) -> None:
    verdict = validate_spawn_policy(policy, PRESETS)
    assert verdict.code is ErrorCode.INVALID_SPAWN_POLICY and verdict.restriction is None
    assert list(verdict.offending) == offending
    assert all(name in verdict.reason for name in offending) and "SP-01" in verdict.reason


@pytest.mark.parametrize("policy", [{}, {"allow": None}, "reviewer", ["reviewer"],
                                    {"allow": "reviewer"}, {"allow": [1]}, {"only": []}])
def test_a_malformed_or_empty_policy_is_refused(policy: object) -> None:
    verdict = validate_spawn_policy(policy, PRESETS)
    assert verdict.code is ErrorCode.INVALID_SPAWN_POLICY and verdict.reason


def test_empty_lists_are_valid_policies() -> None:
    assert validate_spawn_policy({"allow": []}, PRESETS).restriction == Restriction.of(allow=[])
    assert validate_spawn_policy({"deny": []}, ()).ok


NAMES = st.sampled_from(sorted(PRESETS))
POLICY = st.builds(Restriction.of, st.none() | st.lists(NAMES), st.none() | st.lists(NAMES))


@FAST
@given(st.lists(POLICY, max_size=4), NAMES)
def test_a_preset_is_admitted_iff_every_policy_admits_it_in_any_order(
    policies: list[Restriction], preset: str,
) -> None:
    expected = all((p.allow is None or preset in p.allow) and
                   (p.deny is None or preset not in p.deny) for p in policies)
    assert admits_preset(policies, preset) is expected
    assert admits_preset(list(reversed(policies)), preset) is expected
    assert (preset in refused_presets(policies, PRESETS)) is not expected


@FAST
@given(st.lists(POLICY, max_size=3), NAMES)
def test_the_start_oracle_refuses_exactly_the_presets_the_parent_may_not_start(
    policies: list[Restriction], preset: str,
) -> None:
    outcome = decide_start(state(policies), {"provider": "spawn", "preset": preset})
    if admits_preset(policies, preset):
        assert outcome.ok and outcome.child_depth == 1
    else:
        assert outcome.codes == {ErrorCode.SPAWN_DENIED}
        assert repr(preset) in outcome.faults[0].reason


def test_a_start_that_names_no_preset_is_outside_every_policy() -> None:
    nothing = [Restriction.of(allow=[])]
    assert decide_start(state(nothing), {"provider": "spawn"}).ok
    assert decide_start(state(nothing, edition=Edition.REQUEST_CONTROLS),
                        {"provider": "spawn", "persona": "p"}).ok


def test_a_denied_start_to_a_provider_lacking_a_control_lists_the_gate_first() -> None:
    outcome = decide_start(state([Restriction.of(deny=["writer"])]),
                           {"provider": "acp", "preset": "writer", "model": "m"})
    assert [f.code for f in outcome.faults] == [ErrorCode.UNSUPPORTED_CAPABILITY,
                                                ErrorCode.SPAWN_DENIED]
    assert outcome.faults[0].capability is Capability.MODEL_SELECTION
    # the gate fixes the code (docs/rules.md#CA-01): a refusal for the policy breaks it
    assert outcome.codes == outcome.preferred == {ErrorCode.UNSUPPORTED_CAPABILITY}


@pytest.mark.parametrize("setup", [
    {"spawnPolicy": {"allow": ["Writer"]}}, {"model": ""}, {"outputSchema": "object"}])
def test_a_denied_start_is_refused_for_the_policy_before_any_setup_fault(
    setup: dict[str, Any],
) -> None:
    # a denied start creates nothing, as a depth rejection (docs/rules.md#SP-01, #DE-04)
    outcome = decide_start(state([Restriction.of(deny=["writer"])]),
                           {"provider": "spawn", "preset": "writer", **setup})
    assert len(outcome.faults) == 2 and outcome.codes == {ErrorCode.SPAWN_DENIED}


@pytest.mark.parametrize(("extra", "code"), [
    ({"maxDepth": 0}, ErrorCode.DEPTH_EXCEEDED), ({"maxDepth": -1}, ErrorCode.INVALID_DEPTH)])
def test_a_denied_start_that_a_depth_rejection_also_refuses_may_carry_either_code(
    extra: dict[str, Any], code: ErrorCode,
) -> None:
    # no rule orders the policy and the depth among themselves
    outcome = decide_start(state([Restriction.of(deny=["writer"])]),
                           {"provider": "spawn", "preset": "writer", **extra})
    assert outcome.codes == outcome.preferred == {ErrorCode.SPAWN_DENIED, code}


def test_a_model_that_is_no_name_is_a_setup_fault_after_a_depth_rejection() -> None:
    outcome = decide_start(state(), {"provider": "spawn", "model": "", "maxDepth": 0})
    assert outcome.codes == {ErrorCode.DEPTH_EXCEEDED}
    assert decide_start(state(), {"provider": "spawn", "model": "", "outputSchema": "x"}
                        ).codes == {ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_OUTPUT_SCHEMA}


def test_a_childs_own_policy_is_composed_from_preset_or_request_and_validated() -> None:
    presets = {**PRESETS, "lead": Preset(spawn_policy={"allow": ["writer"]})}
    from_preset = decide_start(state(presets=presets), {"provider": "spawn", "preset": "lead"})
    assert from_preset.ok and from_preset.spawn_policy == {"allow": ["writer"]}
    request = {"provider": "spawn", "preset": "lead", "spawnPolicy": {"deny": ["lead"]}}
    assert decide_start(state(presets=presets), request).spawn_policy == {"deny": ["lead"]}
    bad = {"provider": "spawn", "spawnPolicy": {"allow": ["Lead"]}}
    assert decide_start(state(presets=presets), bad).codes == {ErrorCode.INVALID_SPAWN_POLICY}
    unsupported = decide_start(state(presets=presets), {"provider": "acp", "preset": "lead"})
    assert unsupported.codes == {ErrorCode.UNSUPPORTED_CAPABILITY}
    assert decide_start(state(), {"provider": "spawn", "spawnPolicy": None}).spawn_policy is None


def test_a_delegation_tool_names_a_refused_preset_only_as_a_whole_token() -> None:
    policies = [Restriction.of(deny=["writer", "Reviewer"])]
    tools = [
        {"name": "subagent", "description": "Delegate to writer_v2 or rewriter."},
        {"name": "Agent", "description": "Launch an agent.",
         "parameters": {"properties": {"type": {"enum": ["reviewer", "Reviewer"]}}}},
        {"name": "writer"},
    ]
    assert named_refused(tools, policies, PRESETS) == {"Agent": ["Reviewer"],
                                                       "writer": ["writer"]}
    assert named_refused(tools[:1], policies, PRESETS) == {}
    # the words of the schema (parameter names, enum values), not its syntax
    assert offered_text(tools[1]).split("\n") == ["Agent", "Launch an agent.", "type",
                                                   "reviewer", "Reviewer"]


def test_a_preset_named_like_the_tools_own_wording_is_not_judged() -> None:
    tools = [{"name": "task", "description": "Run a task.", "parameters": {
        "type": "object", "additionalProperties": False,
        "properties": {"prompt": {"type": "string", "description": "What to do."}}}}]
    presets = {"task": Preset(), "prompt": Preset(), "string": Preset(), "false": Preset()}
    refuse_all = [Restriction.of(allow=[])]
    own = words(offered_text(tools[0]))
    assert {"task", "Run", "prompt", "What"} <= own and not {"string", "false"} & own
    assert named_refused(tools, refuse_all, presets) == {"task": ["task", "prompt"]}
    assert named_refused(tools, refuse_all, presets, own) == {}


def test_policies_known_to_be_valid_are_parsed_and_an_invalid_one_is_named() -> None:
    assert parse_policies([{"deny": ["writer"]}], PRESETS) == (Restriction.of(deny=["writer"]),)
    with pytest.raises(ValueError, match="editor"):
        parse_policies([{"deny": ["writer"]}, {"allow": ["editor"]}], PRESETS)
