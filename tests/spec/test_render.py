"""Rendering the catalogue (spec/render.py): text, JSON, Markdown, explain, and docs/rules.md."""

from __future__ import annotations

import json
import math
import re
import runpy
import sys
from collections.abc import Callable

import pytest

from subagent_tck.spec import CATALOGUE, ErrorCode, Example, TckError, get_rule, judge
from subagent_tck.spec.render import (
    FORMATS,
    REGENERATE,
    docs_markdown,
    main,
    outcome,
    render_catalogue,
    render_rule,
    rule_dict,
    show,
)


def strict_json(text: str) -> object:
    def refuse(token: str) -> object:
        raise AssertionError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def test_the_text_catalogue_lists_every_rule_with_its_level() -> None:
    text = render_catalogue(CATALOGUE, "text")
    for rule in CATALOGUE:
        assert f"{rule.title}  [{rule.level.value}" in text
    assert text.endswith("57 rules. `subagent-tck explain RULE-ID` shows one with its examples.\n")


def test_the_json_catalogue_is_strict_json_with_every_field() -> None:
    data = strict_json(render_catalogue(CATALOGUE, "json"))
    assert isinstance(data, list) and len(data) == len(CATALOGUE)
    keys = {
        "id", "slug", "title", "family", "level", "capability", "component", "edition",
        "statement", "rationale", "source", "examples",
    }  # fmt: skip
    for item, rule in zip(data, CATALOGUE, strict=True):
        assert keys <= set(item)
        assert item["id"] == rule.id and item["title"] == f"{rule.id} {rule.slug}"
        assert item["source"] == {"document": rule.source.document, "section": rule.source.section}
        for shown, example in zip(item["examples"], rule.examples, strict=True):
            assert shown["title"] == example.title
            if example.oracle is None:
                assert shown["judged"] is None
            else:
                assert shown["judged"] is judge(example)
            assert shown["outcome"] == ("holds" if outcome(example) else "does not hold")


def test_json_carries_a_nan_example_as_a_readable_string() -> None:
    item = rule_dict(get_rule("DE-07"))
    givens = [e["given"] for e in item["examples"]]
    assert {"header": 0, "runtime": "float('nan')"} in givens
    strict_json(json.dumps(item))


def test_the_markdown_catalogue_anchors_every_rule() -> None:
    text = render_catalogue(CATALOGUE, "markdown")
    for rule in CATALOGUE:
        assert f'<a id="{rule.anchor}"></a>\n\n### {rule.title}\n' in text
    assert "## TF: Tool filter" in text and "## ST: The model-facing subagent tool" in text


def test_a_selection_renders_only_the_selected_rules() -> None:
    selection = [get_rule("CA-05")]
    text = render_catalogue(selection, "text")
    assert "CA-05 no-provider" in text and "TF-01" not in text
    assert text.endswith("1 rules. `subagent-tck explain RULE-ID` shows one with its examples.\n")


@pytest.mark.parametrize("rule_id", ["TF-01", "PE-04", "DE-05", "EN-03", "ST-09"])
def test_explain_shows_the_statement_rationale_source_and_every_example(rule_id: str) -> None:
    rule = get_rule(rule_id)
    text = render_rule(rule)
    assert text.startswith(rule.title + "\n")
    flat = " ".join(text.split())
    assert rule.statement in flat and rule.rationale in flat
    assert rule.source.section in text and rule.level.value in text
    for number, example in enumerate(rule.examples, 1):
        verdict = "holds" if outcome(example) else "does not hold"
        assert f"  {number}. {example.title} (" in text
        assert f"): {verdict}\n" in text.split(f"  {number}. {example.title} (", 1)[1]
        assert show(example.observed) in text


def test_explain_names_the_capability_component_and_edition() -> None:
    assert "capability toolFilter · both editions" in render_rule(get_rule("TF-02"))
    assert "component subagent-tool" in render_rule(get_rule("ST-01"))
    assert "every target · edition request-controls" in render_rule(get_rule("EN-03"))


def test_explain_in_json_and_markdown() -> None:
    rule = get_rule("TF-08")
    data = strict_json(render_rule(rule, "json"))
    assert isinstance(data, dict) and data["id"] == "TF-08" and len(data["examples"]) == 3
    markdown = render_rule(rule, "markdown")
    assert markdown.startswith('<a id="tf-08"></a>')
    first = "1. **misspelling and scope-local name both listed**: holds (oracle `restriction`)"
    assert first in markdown
    assert "2. **only the first offender reported**: does not hold" in markdown


def test_a_narrative_example_is_marked_narrative() -> None:
    text = render_rule(get_rule("ST-01"))
    assert "1. the two parameters (narrative): holds" in text
    assert "2. a provider parameter in the schema (narrative): does not hold" in text


@pytest.mark.parametrize("fmt", ["yaml", "", "TEXT"])
def test_an_unknown_format_is_a_usage_error(fmt: str) -> None:
    calls: list[Callable[[], str]] = [
        lambda: render_catalogue(CATALOGUE, fmt),
        lambda: render_rule(CATALOGUE[0], fmt),
    ]
    for call in calls:
        with pytest.raises(TckError) as caught:
            call()
        assert caught.value.code is ErrorCode.USAGE
        assert all(name in caught.value.message for name in FORMATS)


def test_values_json_lacks_are_shown_readably() -> None:
    shown = show({"a": float("nan"), "b": [float("inf"), -math.inf], "c": -0.0, "d": "x"})
    assert shown == (
        """{"a": float('nan'), "b": [float('inf'), float('-inf')], "c": -0.0, "d": "x"}"""
    )


def test_show_keeps_text_and_tuples_readable() -> None:
    assert show(("a", "b")) == '["a", "b"]'
    assert show("一个工具") == '"一个工具"'


def test_an_example_the_oracle_contradicts_is_shown_as_the_oracle_judges() -> None:
    lying = Example(
        title="claims to hold",
        oracle="depth",
        given={"value": -1},
        observed={"accepted": -1},
        holds=True,
    )
    assert outcome(lying) is False
    narrative = Example(title="told", observed="x", holds=False)
    assert outcome(narrative) is False


def test_the_docs_page_has_a_title_intro_contents_and_every_rule() -> None:
    page = docs_markdown()
    assert page.startswith("# The rule catalogue of subagent-tck\n")
    assert REGENERATE in page and "Never edit it by hand" in page
    contents = page.split("## Contents", 1)[1].split('<a id="family-tf"></a>', 1)[0]
    for rule in CATALOGUE:
        assert f"[{rule.title}](#{rule.anchor})" in contents
        assert f'<a id="{rule.anchor}"></a>' in page
    assert page.endswith("\n") and not page.endswith("\n\n")
    assert not re.search(r"[ \t]+$", page, re.M), "no trailing spaces in the page"


def test_the_module_prints_the_docs_page(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    main()
    assert capsysbinary.readouterr().out.decode("utf-8") == docs_markdown()


def test_a_rule_without_examples_renders_without_an_examples_heading() -> None:
    bare = get_rule("TF-01").model_copy(update={"examples": ()})
    assert "Examples" not in render_rule(bare) and "Examples" not in render_rule(bare, "markdown")


def test_markdown_code_spans_survive_backticks_in_values() -> None:
    odd = Example(title="odd", given={"name": "a`b"}, observed="`", holds=True)
    rule = get_rule("ST-01").model_copy(update={"examples": (odd,)})
    markdown = render_rule(rule, "markdown")
    assert '- given: `` {"name": "a`b"} ``' in markdown and '- observed: `` "`" ``' in markdown


def test_running_the_module_prints_the_docs_page(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "subagent_tck.spec.render")  # run it afresh, as -m does
    runpy.run_module("subagent_tck.spec.render", run_name="__main__")
    assert capsysbinary.readouterr().out.decode("utf-8") == docs_markdown()
