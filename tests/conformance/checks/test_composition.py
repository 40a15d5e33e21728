"""The private helpers of the PE/FR/EN checks (conformance/checks/_composition.py)."""

from __future__ import annotations

import pytest

from subagent_tck.conformance.checks._composition import (
    CHILD_PRESET,
    Controls,
    child_setup,
    config,
    expected_sections,
    expected_view,
    named,
    supported_controls,
)
from subagent_tck.conformance.protocol import ProviderInfo, snapshot_of
from subagent_tck.spec import (
    PERSONA_SECTION,
    STRUCTURED_OUTPUT,
    Capability,
    Edition,
    PresentationMode,
    StartOutcome,
)


def test_controls_record_which_keys_were_asked_even_when_empty() -> None:
    controls = Controls.of(persona="")
    assert controls.asked == {"persona"}
    assert controls.capabilities == {Capability.PERSONA}
    with pytest.raises(TypeError):
        Controls.of(maxDepth=1)


def test_a_composition_goes_into_a_preset_or_into_the_request_by_edition() -> None:
    controls = Controls.of(persona="P", tool_filter={"deny": ["a"]})
    presets, extra = child_setup(Edition.PRESET_COMPOSITION, controls)
    assert extra == {"preset": CHILD_PRESET}
    assert (presets[0].persona, presets[0].toolFilter, presets[0].outputSchema) == (
        "P", {"deny": ["a"]}, None)
    presets, extra = child_setup(Edition.REQUEST_CONTROLS, controls)
    assert presets == [] and extra == {"persona": "P", "toolFilter": {"deny": ["a"]}}
    assert child_setup(Edition.PRESET_COMPOSITION, Controls.of()) == ([], {})


def test_supported_controls_keep_only_what_the_provider_advertises() -> None:
    provider = ProviderInfo(name="p", capabilities=[Capability.TOOL_FILTER])
    wanted = Controls.of(persona="P", tool_filter={"deny": []})
    assert supported_controls(provider, wanted).asked == {"tool_filter"}


def test_the_expected_child_prompt_shadows_the_deployment_persona_in_place() -> None:
    cfg = config(Edition.PRESET_COMPOSITION)
    sections = expected_sections(cfg, StartOutcome(persona=""))
    assert [s.name for s in sections] == [PERSONA_SECTION, "house:rules"]
    assert sections[0].text == ""
    no_persona = config(Edition.PRESET_COMPOSITION, persona=None)
    assert [s.name for s in expected_sections(no_persona, StartOutcome(persona=None))] == [
        "house:rules"]


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
    from subagent_tck.conformance.checks._composition import carries_composition, composed_in

    expected = [["deployment:persona-prefix", "You review."], ["rules", "Be brief."]]
    guided = [expected[0], ["tool:structured_output", "Answer with the tool."], expected[1]]
    assert composed_in(guided, expected)
    assert carries_composition("You review.\n\nAnswer with the tool.\n\nBe brief.", guided,
                               expected)
    assert not carries_composition("You review.\n\nBe brief.", guided, expected)


def test_a_second_section_under_a_composed_name_or_a_missing_one_is_not_the_composition() -> None:
    from subagent_tck.conformance.checks._composition import composed_in

    expected = [["deployment:persona-prefix", "You review."], ["rules", "Be brief."]]
    doubled = [["deployment:persona-prefix", "You help."], *expected]
    assert not composed_in(doubled, expected)
    assert not composed_in(expected[:1], expected)
    assert not composed_in(list(reversed(expected)), expected)
