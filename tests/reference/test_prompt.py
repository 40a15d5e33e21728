from __future__ import annotations

import pytest

from subagent_tck.reference import PromptSection, assemble_sections
from subagent_tck.reference.prompt import render_strict, validate_section
from subagent_tck.spec import PERSONA_SECTION, ErrorCode, Section, TckError

VARS = {"name": "Ada"}


def test_a_scoped_section_wins_in_the_same_position() -> None:
    deployment = [PromptSection(PERSONA_SECTION, "D {{name}}"), PromptSection("x", "X")]
    scoped = [PromptSection("y", "Y"), PromptSection(PERSONA_SECTION, "C")]
    assert assemble_sections(deployment, scoped, set(), VARS) == (
        Section(PERSONA_SECTION, "C"),
        Section("x", "X"),
        Section("y", "Y"),
    )


def test_a_child_persona_goes_first_without_a_deployment_persona() -> None:
    deployment = [PromptSection("x", "X")]
    out = assemble_sections(deployment, [PromptSection(PERSONA_SECTION, "C")], (), VARS)
    assert [s.name for s in out] == [PERSONA_SECTION, "x"]


def test_a_guiding_section_is_left_out_where_its_tool_is_hidden() -> None:
    sections = [PromptSection("web", "use web", guides="web"), PromptSection("p", "prose")]
    assert [s.name for s in assemble_sections(sections, [], {"web"}, VARS)] == ["web", "p"]
    assert [s.name for s in assemble_sections(sections, [], set(), VARS)] == ["p"]


def test_strict_rendering_names_the_unknown_variable() -> None:
    assert render_strict("hi {{ name }}", VARS, "t") == "hi Ada"
    with pytest.raises(TckError) as caught:
        render_strict("hi {{who}} {{}}", VARS, "persona")
    assert caught.value.code is ErrorCode.INVALID_TEMPLATE
    assert "who" in caught.value.message and caught.value.details["unknown"] == ["who"]
    assert caught.value.details["malformed"] == ["{{}}"]


@pytest.mark.parametrize(
    "section",
    [
        "text",
        PromptSection("", "x"),
        PromptSection(3, "x"),  # type: ignore[arg-type]
        PromptSection("n", 3),  # type: ignore[arg-type]
        PromptSection("n", "x", guides=4),  # type: ignore[arg-type]
    ],
)
def test_a_malformed_section_is_an_invalid_request(section: object) -> None:
    with pytest.raises(TckError) as caught:
        validate_section(section, VARS)
    assert caught.value.code is ErrorCode.INVALID_REQUEST


def test_a_section_with_a_bad_template_is_refused_when_registered() -> None:
    with pytest.raises(TckError) as caught:
        validate_section(PromptSection("n", "{{nope}}"), VARS)
    assert caught.value.code is ErrorCode.INVALID_TEMPLATE
