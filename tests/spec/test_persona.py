"""The persona oracle (spec/persona.py): composition, strict templates and sections (PE)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.spec import (
    ABSENT,
    PERSONA_SECTION,
    ErrorCode,
    Section,
    assemble_system_prompt,
    compose_persona,
    render_template,
    resolve_sections,
)

FAST = settings(max_examples=60, deadline=None)
TEXT = st.text(alphabet="ab {}_.x", max_size=20)


def test_an_explicit_child_persona_wins_even_when_empty() -> None:
    assert compose_persona("deployment", "preset", "child") == "child"
    assert compose_persona("deployment", "preset", "") == ""


@pytest.mark.parametrize("child", [ABSENT, None])
def test_without_a_child_persona_the_preset_else_the_deployment_is_composed(
    child: object,
) -> None:
    assert compose_persona("deployment", "preset", child) == "preset"
    assert compose_persona("deployment", None, child) == "deployment"
    assert compose_persona(None, None, child) is None
    assert compose_persona("deployment") == "deployment"


def test_known_variables_are_substituted_with_spaces_allowed() -> None:
    verdict = render_template("Hi {{ name }}, team {{team.id}}.", {"name": "Ada", "team.id": "7"})
    assert verdict.ok and verdict.text == "Hi Ada, team 7." and verdict.reason == ""


def test_unknown_variables_are_named_once_each() -> None:
    verdict = render_template("{{x}} {{y}} {{x}}", {})
    assert verdict.code is ErrorCode.INVALID_TEMPLATE and verdict.text is None
    assert verdict.unknown == ("x", "y") and verdict.reason == "unknown variable(s) x, y"


@pytest.mark.parametrize(
    ("template", "malformed"),
    [
        ("{{}}", "{{}}"),
        ("{{a b}}", "{{a b}}"),
        ("{{ {{a}}", "{{ {{a}}"),
        ("{{1x}}", "{{1x}}"),
        ("{{a-b}}", "{{a-b}}"),
        ("{{{a}}}", "{{{a}}"),
        ("{{{{a}}}}", "{{{{a}}"),
    ],
)
def test_malformed_placeholders_are_errors_that_name_them(template: str, malformed: str) -> None:
    verdict = render_template(template, {"a": "1", "name": "n"})
    assert not verdict.ok and verdict.malformed == (malformed,)
    assert verdict.reason == f"malformed placeholder(s) {malformed}"


@pytest.mark.parametrize(
    ("template", "text", "grammar"),
    [
        ("hello {{name", "hello {{name", ("{{name",)),
        ("stray }} here", "stray }} here", ("}} here",)),
        ("a}}b{{name}}", "a}}bn", ("}}b",)),
        ("{{a}} then {{ open", "1 then {{ open", ("{{ open",)),
        ("}}}} {{a}} {{", "}}}} 1 {{", ("}}}} ", "}} ", "{{")),
    ],
)
def test_a_brace_pair_that_opens_or_closes_nothing_is_literal_prose_never_partly_substituted(
    template: str, text: str, grammar: tuple[str, ...],
) -> None:
    """docs/rules.md#PE-05, "template grammar": the implementation's grammar; the oracle reads
    it as written (a runtime may refuse it instead, naming it: ``grammar`` lists it)."""
    verdict = render_template(template, {"a": "1", "name": "n"})
    assert verdict.ok and verdict.text == text and verdict.grammar == grammar


@pytest.mark.parametrize(
    ("template", "text", "grammar"),
    [
        ("{{ name }} lead", "n lead", ("{{ name }}",)),
        ("{{name }}/{{a}}", "n/1", ("{{name }}",)),
        ("x {{\tname}}", "x n", ("{{\tname}}",)),
        ("{{a.b}}!", "2!", ("{{a.b}}",)),
        ("{{name}} {{a}}", "n 1", ()),
    ],
)
def test_a_known_placeholder_spelled_with_spaces_or_a_dot_is_substituted_and_may_be_refused(
    template: str, text: str, grammar: tuple[str, ...],
) -> None:
    """docs/rules.md#PE-05, "template grammar": ``{{name}}`` is the one spelling every
    implementation must read; spaces inside the braces and dots are the implementation's
    grammar (substituted or refused, never sent raw), so the oracle substitutes them and lists
    them, and a judge accepts a refusal too (DSH 0.1.x refuses ``{{ name }}`` as malformed)."""
    verdict = render_template(template, {"a": "1", "name": "n", "a.b": "2"})
    assert verdict.ok and verdict.text == text and verdict.grammar == grammar


def test_a_literal_brace_pair_does_not_excuse_a_malformed_group_beside_it() -> None:
    verdict = render_template("{{}} and {{ open", {})
    assert verdict.code is ErrorCode.INVALID_TEMPLATE and verdict.malformed == ("{{}}",)
    assert verdict.grammar == ("{{ open",)


def test_an_unknown_and_a_malformed_placeholder_are_both_reported() -> None:
    verdict = render_template("{{x}} {{}}", {})
    assert verdict.reason == "unknown variable(s) x; malformed placeholder(s) {{}}"


@FAST
@given(TEXT, st.dictionaries(st.sampled_from(["a", "b", "x"]), st.sampled_from(["1", "2"])))
def test_a_rendered_template_never_carries_a_raw_placeholder(
    template: str, variables: dict[str, str]
) -> None:
    verdict = render_template(template, variables)
    if verdict.ok:
        assert verdict.text is not None
        # what is left of braces is only what the template had as literal prose
        assert verdict.text.count("{{") <= template.count("{{")
        if not verdict.grammar:
            assert "{{" not in verdict.text and "}}" not in verdict.text
    else:
        assert verdict.text is None and verdict.reason


@FAST
@given(st.text(alphabet="ab .", max_size=20))
def test_text_without_braces_renders_unchanged(text: str) -> None:
    assert render_template(text, {}).text == text


def test_the_most_specific_section_replaces_the_inherited_one_in_place() -> None:
    inherited = [Section(PERSONA_SECTION, "deploy"), Section("guide", "g")]
    scoped = [Section("extra", "e"), Section(PERSONA_SECTION, "child")]
    assert resolve_sections(inherited, scoped) == (
        Section(PERSONA_SECTION, "child"),
        Section("guide", "g"),
        Section("extra", "e"),
    )


@FAST
@given(st.lists(st.sampled_from(["p", "q", "r"]), unique=True),
       st.lists(st.sampled_from(["p", "q", "s"]), unique=True))
def test_resolution_keeps_one_section_per_name(inherited: list[str], scoped: list[str]) -> None:
    out = resolve_sections(
        [Section(n, "in") for n in inherited], [Section(n, "own") for n in scoped]
    )
    assert [s.name for s in out][: len(inherited)] == inherited
    assert sorted(s.name for s in out) == sorted(set(inherited) | set(scoped))
    assert all(s.text == "own" for s in out if s.name in scoped)


def test_the_system_prompt_joins_non_empty_sections() -> None:
    sections = [Section(PERSONA_SECTION, ""), Section("a", "one"), Section("b", "two")]
    assert assemble_system_prompt(sections) == "one\n\ntwo"
