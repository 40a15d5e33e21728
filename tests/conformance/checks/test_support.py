"""The helper library of the checks (conformance/engine/checks/_observed.py, _starts.py and
_composed.py) and its drawn texts (conformance/engine/checks/_texts.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from subagent_tck.conformance.core.protocol import DeploymentConfig, ProviderInfo, snapshot_of
from subagent_tck.conformance.engine.checks._composed import (
    carries_composition,
    composed_in,
    config,
    expected_sections,
    expected_view,
)
from subagent_tck.conformance.engine.checks._observed import Snapshot, named
from subagent_tck.conformance.engine.checks._starts import (
    PRESET_NAME,
    capabilities_of,
    composition,
    supported_controls,
)
from subagent_tck.conformance.engine.checks._texts import EXAMPLE, Vocabulary, vocabularies
from subagent_tck.spec import (
    FIELD_CAPABILITY,
    PERSONA_SECTION,
    STRUCTURED_OUTPUT,
    Capability,
    Edition,
    PresentationMode,
    StartOutcome,
    render_template,
)


def test_a_control_given_is_asked_for_even_when_empty() -> None:
    assert capabilities_of({"persona": ""}) == {Capability.PERSONA}
    with pytest.raises(TypeError):
        composition(Edition.REQUEST_CONTROLS, {"maxDepth": 1})


def test_a_composition_goes_into_a_preset_or_into_the_request_by_edition() -> None:
    controls = {"persona": "P", "toolFilter": {"deny": ["a"]}}
    comp = composition(Edition.PRESET_COMPOSITION, controls)
    assert comp.fields == {"preset": PRESET_NAME}
    preset = comp.presets[0]
    assert (preset.persona, preset.toolFilter, preset.outputSchema) == ("P", {"deny": ["a"]}, None)
    assert composition(Edition.PRESET_COMPOSITION, controls, "Réviseur").fields == {
        "preset": "Réviseur"}
    comp = composition(Edition.REQUEST_CONTROLS, controls)
    assert comp.presets == [] and comp.fields == controls
    assert composition(Edition.PRESET_COMPOSITION, {}).fields == {}


def test_supported_controls_keep_only_what_the_provider_advertises() -> None:
    provider = ProviderInfo(name="p", capabilities=[Capability.TOOL_FILTER])
    wanted = {"persona": "P", "toolFilter": {"deny": []}}
    assert supported_controls(provider, wanted) == {"toolFilter": {"deny": []}}


def test_the_field_to_capability_map_is_the_specs() -> None:
    from subagent_tck.conformance.engine.checks._gating_routes import FIELD

    assert {FIELD[c]: c for c in FIELD} == dict(FIELD_CAPABILITY)


def test_the_expected_child_prompt_shadows_the_deployment_persona_in_place() -> None:
    cfg = config(Edition.PRESET_COMPOSITION, tools=["a"])
    sections = expected_sections(cfg, StartOutcome(persona=""))
    assert [s.name for s in sections] == [PERSONA_SECTION, "house:rules"]
    assert sections[0].text == ""
    no_persona = config(Edition.PRESET_COMPOSITION, tools=["a"], persona=None)
    assert [s.name for s in expected_sections(no_persona, StartOutcome(persona=None))] == [
        "house:rules"]


def test_a_snapshot_names_what_changed_including_watched_views_and_prompts() -> None:
    before = Snapshot((), ("a",), (), (), 0, ("a",), {"a": [["x", "global"]]}, {"a": []})
    after = Snapshot((), ("a",), (), (), 1, ("a",), {"a": []}, {"a": []})
    assert before.differences(before) == []
    assert before.differences(after) == ["model requests: 0 -> 1", "views of a"]
    assert set(before.changes(after)) == {"requests", "views"}


@settings(max_examples=60, database=None, deadline=None)
@given(vocabularies())
def test_a_drawn_vocabulary_is_one_the_oracle_renders_with_distinct_names(
    texts: Vocabulary,
) -> None:
    for template in (texts.deployment_persona, texts.child_persona, texts.sibling_persona,
                     texts.preset_persona):
        assert template and render_template(template, texts.variables).ok
    assert len(set(texts.presets)) == 3
    assert len(set(texts.tools)) == len(texts.tools) >= 4 and texts.late not in texts.tools
    assert PERSONA_SECTION not in {n for n, _ in texts.sections}


def test_drawn_vocabularies_leave_the_kits_former_fixed_texts() -> None:
    seen: list[Vocabulary] = []

    @settings(max_examples=40, database=None, deadline=None)
    @given(vocabularies())
    def draw(texts: Vocabulary) -> None:
        seen.append(texts)

    draw()
    assert all("DEPLOYMENT-PERSONA" not in t.deployment_persona for t in seen)
    assert any(set(t.variables) - {"team", "role"} for t in seen)
    assert any(not t.deployment_persona.isascii() for t in seen)
    assert any(set(t.tools).isdisjoint(EXAMPLE.tools) for t in seen)


def test_the_expected_view_adds_structured_output_and_keeps_removed_names_valid() -> None:
    outcome = StartOutcome(tool_filter={"allow": ["a", "gone"]}, output_schema={"type": "object"})
    view = expected_view(outcome, ("a", "b"), PresentationMode.BOTH, installed_over=("a", "b",
                                                                                     "gone"))
    assert {e.name for e in view} == {"a", STRUCTURED_OUTPUT, "run_code"}


def test_a_published_snapshot_is_read_in_each_plausible_shape() -> None:
    data = {"snapshot": {"view": ["b", {"name": "a"}, ["c", "global"]],
                         "prompt": [["x", "1"], {"name": "y", "text": "2"}]}}
    assert snapshot_of(data) == ([["x", "1"], ["y", "2"]], ["a", "b", "c"])
    assert snapshot_of({}) == (None, None)
    assert snapshot_of({"snapshot": {"view": [3], "prompt": "text"}}) == (None, None)


def test_an_error_names_a_placeholder_by_its_token_or_its_inner_name() -> None:
    assert named("{{two words}}", "malformed placeholder(s) {{two words}}")
    assert named("{{ghost}}", "unknown variable(s) ghost")
    assert not named("{{}}", "something else")


def test_a_composed_prompt_may_carry_runtime_guidance_between_its_sections() -> None:
    expected = [["deployment:persona-prefix", "You review."], ["rules", "Be brief."]]
    guided = [expected[0], ["tool:structured_output", "Answer with the tool."], expected[1]]
    assert composed_in(guided, expected)
    assert carries_composition("You review.\n\nAnswer with the tool.\n\nBe brief.", guided,
                               expected)
    assert not carries_composition("You review.\n\nBe brief.", guided, expected)


def test_a_second_section_under_a_composed_name_or_a_missing_one_is_not_the_composition() -> None:
    expected = [["deployment:persona-prefix", "You review."], ["rules", "Be brief."]]
    doubled = [["deployment:persona-prefix", "You help."], *expected]
    assert not composed_in(doubled, expected)
    assert not composed_in(expected[:1], expected)
    assert not composed_in(list(reversed(expected)), expected)


def test_a_late_request_of_an_unrelated_agent_is_no_trace_whenever_it_arrives() -> None:
    """``expect_unchanged`` reads the gateway's requests twice (the snapshot's count, then who
    made them): a request an unrelated agent makes between the two reads is not taken off a
    count that never held it (DSH's continuable path, under load: "model requests: 1 -> 0")."""
    from types import SimpleNamespace

    from subagent_tck.conformance.core.gateway import Gateway
    from subagent_tck.conformance.engine.checks._observed import expect_unchanged, snapshot
    from subagent_tck.conformance.transports.builtin import reference_target

    late = SimpleNamespace(agent="parent", messages=[])

    class LateGateway:
        def __init__(self) -> None:
            self.made = [SimpleNamespace(agent="parent", messages=[])]
            self.reads = 0

        def requests(self, agent: str | None = None) -> list[SimpleNamespace]:
            self.reads += 1
            if self.reads == 3:  # after the snapshot's count, before "who made them"
                self.made.append(late)
            return list(self.made)

    expected: list[tuple[bool, str]] = []
    ctx = SimpleNamespace(gateway=LateGateway(), expect=lambda rule, ok, what, *a, **k:
                          expected.append((ok, what)) or ok)
    dep = reference_target().deploy(DeploymentConfig(), Gateway())
    try:
        before = snapshot(dep, ctx.gateway)
        assert expect_unchanged(ctx, "FR-04", before, dep, "a refused resume",  # type: ignore
                                unrelated=["parent"])
        assert expected == [(True, "a refused resume left traces: ")]
    finally:
        dep.close()
