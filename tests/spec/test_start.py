"""The start oracle (spec/start.py): gating, editions, depth and setup validation together."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.spec import (
    ABSENT,
    CONTROLS,
    FIELD_CAPABILITY,
    Capability,
    Edition,
    ErrorCode,
    Preset,
    StartState,
    decide_start,
    decide_start_depth,
)

FAST = settings(max_examples=60, deadline=None)
ALL = list(CONTROLS)


def state(**overrides: Any) -> StartState:
    base: dict[str, Any] = {
        "edition": Edition.REQUEST_CONTROLS,
        "providers": {"spawn": ALL, "acp": []},
        "global_names": ["read", "write"],
        "presets": {
            "reviewer": Preset("You review for {{team}}.", {"allow": ["read"]}, {"type": "object"})
        },
        "variables": {"team": "infra"},
    }
    base.update(overrides)
    return StartState(**base)


def codes(request: dict[str, Any], **overrides: Any) -> set[ErrorCode]:
    return set(decide_start(state(**overrides), request).codes)


def test_every_control_field_maps_to_its_capability() -> None:
    assert set(FIELD_CAPABILITY.values()) == set(CONTROLS)
    assert Capability.INHERITS_PARENT_CONTEXT not in CONTROLS


@pytest.mark.parametrize("provider", ["spwan", None, 3])
def test_an_unknown_provider_is_no_provider_and_nothing_else(provider: object) -> None:
    outcome = decide_start(state(), {"provider": provider, "prompt": "go", "maxDepth": -1})
    assert outcome.codes == {ErrorCode.NO_PROVIDER} and not outcome.ok


@pytest.mark.parametrize("preset", ["nope", 7])
def test_an_unknown_preset_is_refused(preset: object) -> None:
    assert codes({"provider": "spawn", "preset": preset}) == {ErrorCode.UNKNOWN_PRESET}


def test_a_preset_composes_the_child_in_the_preset_edition() -> None:
    outcome = decide_start(
        state(edition=Edition.PRESET_COMPOSITION), {"provider": "spawn", "preset": "reviewer"}
    )
    assert outcome.ok and outcome.child_depth == 1
    assert outcome.persona == "You review for infra."
    assert outcome.tool_filter == {"allow": ["read"]}
    assert outcome.output_schema == {"type": "object"}


@pytest.mark.parametrize("field", ["persona", "toolFilter"])
def test_the_preset_edition_refuses_request_controls(field: str) -> None:
    value = "You review." if field == "persona" else {"allow": ["read"]}
    request = {"provider": "spawn", field: value}
    assert codes(request, edition=Edition.PRESET_COMPOSITION) == {
        ErrorCode.REQUEST_CONTROLS_REFUSED
    }
    assert codes(request) == set()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("maxDepth", 2),
        ("persona", ""),
        ("toolFilter", {"deny": []}),
        ("outputSchema", {"type": "object"}),
    ],
)
def test_a_control_the_provider_lacks_is_unsupported(field: str, value: object) -> None:
    outcome = decide_start(state(), {"provider": "acp", field: value})
    assert outcome.codes == {ErrorCode.UNSUPPORTED_CAPABILITY}
    assert [f.capability for f in outcome.faults] == [FIELD_CAPABILITY[field]]


def test_a_control_asked_by_a_preset_is_gated_too() -> None:
    outcome = decide_start(state(), {"provider": "acp", "preset": "reviewer"})
    assert {f.capability for f in outcome.faults} == {
        Capability.PERSONA, Capability.TOOL_FILTER, Capability.OUTPUT_SCHEMA
    }


def test_the_capability_fault_comes_before_the_value_fault() -> None:
    outcome = decide_start(state(), {"provider": "acp", "maxDepth": -1})
    assert [f.code for f in outcome.faults] == [
        ErrorCode.UNSUPPORTED_CAPABILITY, ErrorCode.INVALID_DEPTH
    ]


def test_null_controls_count_as_absent_but_a_null_cap_is_invalid() -> None:
    assert codes({"provider": "acp", "persona": None, "toolFilter": None}) == set()
    assert codes({"provider": "spawn", "maxDepth": None}) == {ErrorCode.INVALID_DEPTH}


def test_the_request_value_wins_over_the_preset() -> None:
    request = {
        "provider": "spawn",
        "preset": "reviewer",
        "persona": "Solo.",
        "toolFilter": {"deny": ["write"]},
    }
    outcome = decide_start(state(), request)
    assert outcome.persona == "Solo." and outcome.tool_filter == {"deny": ["write"]}


def test_the_deployment_persona_is_rendered_when_none_is_asked() -> None:
    outcome = decide_start(state(deployment_persona="Hello {{team}}."), {"provider": "acp"})
    assert outcome.ok and outcome.persona == "Hello infra." and outcome.tool_filter is None
    assert outcome.output_schema is None
    assert decide_start(state(), {"provider": "acp"}).persona is None


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"persona": 5}, ErrorCode.INVALID_REQUEST),
        ({"persona": "Hi {{who}}"}, ErrorCode.INVALID_TEMPLATE),
        ({"toolFilter": {"allow": ["raed"]}}, ErrorCode.INVALID_TOOL_FILTER),
        ({"toolFilter": {}}, ErrorCode.INVALID_TOOL_FILTER),
        ({"outputSchema": {"type": "string"}}, ErrorCode.INVALID_OUTPUT_SCHEMA),
        ({"outputSchema": "object"}, ErrorCode.INVALID_OUTPUT_SCHEMA),
        ({"maxDepth": 0}, ErrorCode.DEPTH_EXCEEDED),
    ],
)
def test_a_setup_fault_refuses_the_start(request_: dict[str, Any], code: ErrorCode) -> None:
    outcome = decide_start(state(), {"provider": "spawn", **request_})
    assert outcome.codes == {code} and outcome.child_depth is None and outcome.faults[0].reason


def test_every_applicable_fault_is_listed_and_the_rules_fix_which_code_is_expected() -> None:
    request = {"provider": "acp", "persona": "Hi {{who}}", "toolFilter": {}, "maxDepth": 1.5}
    outcome = decide_start(state(edition=Edition.PRESET_COMPOSITION), request)
    assert {f.code for f in outcome.faults} == {
        ErrorCode.REQUEST_CONTROLS_REFUSED,
        ErrorCode.UNSUPPORTED_CAPABILITY,
        ErrorCode.INVALID_DEPTH,
        ErrorCode.INVALID_TEMPLATE,
        ErrorCode.INVALID_TOOL_FILTER,
    }
    # EN-02's code beside the others; the gate before setup (CA-02); maxDepth's own value
    # check beside the gate (CA-03 is a SHOULD), which the preferred codes leave out
    assert outcome.codes == {ErrorCode.REQUEST_CONTROLS_REFUSED,
                             ErrorCode.UNSUPPORTED_CAPABILITY, ErrorCode.INVALID_DEPTH}
    assert outcome.preferred == {ErrorCode.REQUEST_CONTROLS_REFUSED,
                                 ErrorCode.UNSUPPORTED_CAPABILITY}
    assert outcome.deciding is not None
    assert outcome.deciding.code is ErrorCode.UNSUPPORTED_CAPABILITY


@pytest.mark.parametrize("header", [-1, 1.5, "1", 2**53 - 1])
def test_an_unadvertised_control_is_unsupported_whatever_the_parents_depth(header: object) -> None:
    # a stored depth outside the domain (DE-06) or an overflow (DE-08) fixes no code; CA-01 does
    outcome = decide_start(state(parent_header_depth=header), {"provider": "acp", "persona": ""})
    assert outcome.codes == outcome.preferred == {ErrorCode.UNSUPPORTED_CAPABILITY}
    assert len(outcome.faults) == 2


@pytest.mark.parametrize("setup", [
    {"persona": "Hi {{who}}"}, {"toolFilter": {"allow": ["raed"]}},
    {"outputSchema": "object"}])
@pytest.mark.parametrize(("extra", "code"), [
    ({"maxDepth": 0}, ErrorCode.DEPTH_EXCEEDED), ({"maxDepth": -0.0}, ErrorCode.INVALID_DEPTH),
    ({"provider": "acp"}, ErrorCode.UNSUPPORTED_CAPABILITY)])
def test_a_rejection_before_ownership_comes_before_a_setup_fault(
    setup: dict[str, Any], extra: dict[str, Any], code: ErrorCode,
) -> None:
    # depth and capability rejections leave nothing (DE-04, CA-02); setup faults come after
    outcome = decide_start(state(), {"provider": "spawn", **setup, **extra})
    assert len(outcome.faults) >= 2 and outcome.codes == {code}


def test_setup_faults_may_be_reported_in_any_order() -> None:
    request = {"provider": "spawn", "persona": "Hi {{who}}", "toolFilter": {},
               "outputSchema": "object"}
    assert codes(request) == {ErrorCode.INVALID_TEMPLATE, ErrorCode.INVALID_TOOL_FILTER,
                              ErrorCode.INVALID_OUTPUT_SCHEMA}


def test_a_request_control_refused_by_the_edition_may_be_reported_beside_any_other() -> None:
    request = {"provider": "spawn", "persona": "Hi.", "maxDepth": 0}
    outcome = decide_start(state(edition=Edition.PRESET_COMPOSITION), request)
    assert outcome.codes == {ErrorCode.REQUEST_CONTROLS_REFUSED, ErrorCode.DEPTH_EXCEEDED}
    assert outcome.preferred == outcome.codes


DEPTH = st.integers(min_value=0, max_value=20)


@FAST
@given(DEPTH, st.one_of(st.just(ABSENT), DEPTH), st.one_of(st.just(ABSENT), DEPTH))
def test_a_start_agrees_with_the_depth_oracle(header: int, runtime: object, cap: object) -> None:
    request: dict[str, Any] = {"provider": "spawn"}
    if cap is not ABSENT:
        request["maxDepth"] = cap
    outcome = decide_start(
        state(parent_header_depth=header, parent_runtime_depth=runtime), request
    )
    depth = decide_start_depth(header, runtime, cap)
    assert outcome.ok == depth.ok and outcome.child_depth == depth.child_depth
    if not depth.ok:
        assert outcome.codes == {depth.code}


def test_a_persona_with_literal_braces_may_be_refused_beside_another_fault() -> None:
    """Found by the campaign at seed 3953958751 against the JavaScript implementation (which
    refuses an unclosed '{{'): a start whose preset's filter names an unknown tool and whose
    persona is "Broken {{" may be refused with INVALID_TEMPLATE as well as INVALID_TOOL_FILTER
    (docs/rules.md#PE-05, "template grammar")."""
    presets = {"web1": Preset(None, {"deny": ["mcp__ledger__atlas"]})}
    outcome = decide_start(state(presets=presets), {
        "provider": "spawn", "prompt": "go", "persona": "Broken {{", "preset": "web1"})
    assert outcome.codes == {ErrorCode.INVALID_TOOL_FILTER, ErrorCode.INVALID_TEMPLATE}
    assert outcome.persona_grammar == ("{{",)
    from subagent_tck.spec.judge import judge_start
    given = {"edition": "request-controls", "providers": {"spawn": [c.value for c in ALL]},
             "globals": [], "presets": {"web1": {"toolFilter": {"deny": ["ghost"]}}},
             "request": {"provider": "spawn", "prompt": "go", "persona": "Broken {{",
                         "preset": "web1"}}
    assert judge_start(given, {"code": "INVALID_TEMPLATE"})
    assert judge_start(given, {"code": "INVALID_TOOL_FILTER"})
    assert not judge_start(given, {"code": "DEPTH_EXCEEDED"})
    # a depth rejection comes first (DE-04): the grammar's refusal is a setup fault
    capped = {**given, "request": {**given["request"], "maxDepth": 0}}
    assert judge_start(capped, {"code": "DEPTH_EXCEEDED"})
    assert not judge_start(capped, {"code": "INVALID_TEMPLATE"})
