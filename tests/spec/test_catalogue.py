"""The catalogue's lint: the rules of spec/catalogue against the rule list, and every executable
example against the oracle (one test per example, ids like ``TF-01[2]``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from subagent_tck.spec import (
    CATALOGUE,
    RULES_BY_ID,
    Capability,
    Component,
    Edition,
    ErrorCode,
    Example,
    Level,
    Rule,
    TckError,
    catalogue_hash,
    get_rule,
    judge,
)

SHARED = Path(__file__).parents[2].parent / "shared"
RULES_MD = SHARED / "RULES.md"
SEEDS = SHARED / "seeds"
ID_COPY = Path(__file__).with_name("rule_ids.txt")
ROW = re.compile(r"^\| ((?:TF|PE|DE|CA|FR|EN|ST|SP|MO)-\d\d) ([a-z0-9-]+) \| (MUST|SHOULD) \|",
                 re.M)
SEED_NAMES = {"000_f18e7de65ba39cf4.txt", "002_9cf54e4b1767c2c9.txt", "003_245c1cf8a71a40fd.txt"}
#: Public documentation a rule may cite beside the seeds (spec/render.py names it for readers).
PUBLIC_DOCUMENTS = {"runtimes": {"Known practice"}}

Row = tuple[str, str, str]


def rows_of_rules_md(text: str) -> list[Row]:
    return [(m.group(1), m.group(2), m.group(3)) for m in ROW.finditer(text)]


def rows_of_copy() -> list[Row]:
    lines = ID_COPY.read_text(encoding="utf-8").splitlines()
    rows = [tuple(line.split()) for line in lines if line.strip() and not line.startswith("#")]
    assert all(len(row) == 3 for row in rows), "rule_ids.txt lines are: ID SLUG LEVEL"
    return [(a, b, c) for a, b, c in rows]


def expected_rows() -> list[Row]:
    """The rule list's ids, read from the list beside the checkout when there is one, else from the
    committed copy (tests/spec/rule_ids.txt)."""
    if RULES_MD.exists():
        return rows_of_rules_md(RULES_MD.read_text(encoding="utf-8"))
    return rows_of_copy()


def test_the_committed_id_list_is_the_one_of_rules_md() -> None:
    copy = rows_of_copy()
    assert len(copy) == len({row[0] for row in copy}) == 57
    if RULES_MD.exists():
        assert copy == rows_of_rules_md(RULES_MD.read_text(encoding="utf-8")), (
            "tests/spec/rule_ids.txt is stale: copy the id, slug and level of every rule row of "
            "RULES.md into it"
        )


def test_ids_are_unique_and_exactly_those_of_rules_md_in_its_order() -> None:
    ids = [rule.id for rule in CATALOGUE]
    assert len(ids) == len(set(ids)), "a rule id appears twice in the catalogue"
    assert ids == [row[0] for row in expected_rows()]
    assert set(RULES_BY_ID) == set(ids)


def test_slugs_and_levels_are_those_of_rules_md() -> None:
    expected = {rid: (slug, level) for rid, slug, level in expected_rows()}
    for rule in CATALOGUE:
        assert (rule.slug, rule.level.value) == expected[rule.id], rule.id


def test_each_rule_sits_in_the_family_of_its_id() -> None:
    for rule in CATALOGUE:
        assert rule.id.startswith(rule.family.value + "-"), rule.id


@pytest.mark.parametrize("rule", CATALOGUE, ids=[r.id for r in CATALOGUE])
def test_statements_and_rationales_are_plain_sentences(rule: Rule) -> None:
    for label, text in (("statement", rule.statement), ("rationale", rule.rationale)):
        assert 20 <= len(text) <= 400, f"{rule.id} {label}: {len(text)} characters"
        assert text.endswith("."), f"{rule.id} {label} must end with a period"
        assert "|" not in text, f"{rule.id} {label}: no markdown table pipes"
        assert "TODO" not in text.upper(), f"{rule.id} {label}: no TODO"
        assert text == text.strip(), f"{rule.id} {label}: no leading or trailing spaces"
        assert "\n" not in text, f"{rule.id} {label}: one paragraph"
    sentences = [s for s in re.split(r"(?<=[.;])\s+(?=[A-Z])", rule.statement) if s]
    assert len(sentences) <= 3, f"{rule.id}: a statement has 1-3 sentences"


def test_capabilities_components_and_editions_follow_the_families() -> None:
    depth_limit = {"DE-03", "DE-04", "DE-05", "DE-09"}
    editions = {
        "EN-01": Edition.PRESET_COMPOSITION,
        "EN-02": Edition.PRESET_COMPOSITION,
        "EN-03": Edition.REQUEST_CONTROLS,
    }
    family_capability = {"TF": Capability.TOOL_FILTER, "PE": Capability.PERSONA,
                         "SP": Capability.SPAWN_POLICY, "MO": Capability.MODEL_SELECTION}
    for rule in CATALOGUE:
        family = rule.family.value
        if family in family_capability:
            expected = family_capability[family]
        elif rule.id in depth_limit:
            expected = Capability.DEPTH_LIMIT
        else:
            expected = None
        assert rule.capability == expected, rule.id
        assert rule.component == (Component.SUBAGENT_TOOL if family == "ST" else None), rule.id
        assert rule.edition == editions.get(rule.id), rule.id


def test_the_stateful_rules_are_those_the_oracle_decides() -> None:
    stateful = {
        *(f"TF-{n:02d}" for n in range(1, 13)),
        "PE-01", "PE-02", "PE-03", "PE-05",
        "DE-01", "DE-02", "DE-03", "DE-05", "DE-06", "DE-07", "DE-08", "DE-10",
        "CA-01", "CA-05", "EN-02", "SP-01", "SP-02", "MO-01",
    }  # fmt: skip
    assert {rule.id for rule in CATALOGUE if rule.stateful} == stateful


@pytest.mark.parametrize("rule", CATALOGUE, ids=[r.id for r in CATALOGUE])
def test_every_rule_has_between_one_and_a_few_examples(rule: Rule) -> None:
    assert rule.examples, f"{rule.id} has no example"
    titles = [e.title for e in rule.examples]
    assert len(titles) == len(set(titles)), f"{rule.id}: two examples share a title"


STATEFUL_MUST = [r for r in CATALOGUE if r.stateful and r.level is Level.MUST]


@pytest.mark.parametrize("rule", STATEFUL_MUST, ids=[r.id for r in STATEFUL_MUST])
def test_a_stateful_must_rule_shows_a_holding_and_a_failing_executable_example(
    rule: Rule,
) -> None:
    assert all(e.oracle is not None for e in rule.examples), (
        f"{rule.id} is stateful: every example must name an oracle"
    )
    outcomes = {e.holds for e in rule.examples}
    assert outcomes == {True, False}, f"{rule.id} needs an example that holds and one that not"


@pytest.mark.parametrize("rule", CATALOGUE, ids=[r.id for r in CATALOGUE])
def test_a_source_names_a_seed_section_or_a_rules_md_decision(rule: Rule) -> None:
    source = rule.source
    if source.document == "RULES.md":
        assert source.section in {"Decision", "Known practice"}, rule.id
        return
    if source.document in PUBLIC_DOCUMENTS:
        assert source.section in PUBLIC_DOCUMENTS[source.document], rule.id
        return
    assert source.document in SEED_NAMES, f"{rule.id}: unknown document {source.document}"
    seed = SEEDS / source.document
    if seed.exists():
        lines = {line.strip().lstrip("#").strip() for line in seed.read_text("utf-8").splitlines()}
        assert source.section in lines, f"{rule.id}: no heading {source.section!r} in the seed"


EXAMPLES = [(rule, n, e) for rule in CATALOGUE for n, e in enumerate(rule.examples, 1)]
EXECUTABLE = [(rule, n, e) for rule, n, e in EXAMPLES if e.oracle is not None]


@pytest.mark.parametrize(
    ("rule", "example"),
    [(rule, e) for rule, _, e in EXECUTABLE],
    ids=[f"{rule.id}[{n}]" for rule, n, _ in EXECUTABLE],
)
def test_the_oracle_agrees_with_the_example(rule: Rule, example: Example) -> None:
    verdict = judge(example)
    assert verdict == example.holds, (
        f"{rule.id} example {example.title!r}: the catalogue says holds={example.holds}, "
        f"the {example.oracle} oracle says {verdict}"
    )


def test_non_stateful_rules_mark_no_executable_example_wrongly() -> None:
    wrong = [
        f"{rule.id}[{n}]"
        for rule, n, e in EXECUTABLE
        if not rule.stateful and judge(e) != e.holds
    ]
    assert not wrong
    assert any(not rule.stateful for rule, _, _ in EXECUTABLE), "checks narrative rules too"


def test_a_rule_is_found_by_its_id_in_any_case() -> None:
    assert get_rule("tf-01") is RULES_BY_ID["TF-01"]
    assert get_rule(" DE-05 ").slug == "cap-domain"


def test_an_unknown_rule_id_is_a_usage_error_naming_the_families() -> None:
    with pytest.raises(TckError) as caught:
        get_rule("XX-99")
    assert caught.value.code is ErrorCode.USAGE
    assert "TF" in caught.value.message and "subagent-tck rules" in caught.value.message


def test_the_catalogue_hash_is_a_stable_digest() -> None:
    digest = catalogue_hash()
    assert re.fullmatch(r"[0-9a-f]{16}", digest)
    assert digest == catalogue_hash()


def test_the_catalogue_hash_tells_a_nan_example_from_a_none_example(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from subagent_tck.spec import catalogue as catalogue_module

    rule = get_rule("DE-05")
    index, nan_example = next((i, e) for i, e in enumerate(rule.examples)
                              if repr(e.given.get("value")) == "nan")
    as_none = nan_example.model_copy(update={"given": {"value": None}})
    examples = (*rule.examples[:index], as_none, *rule.examples[index + 1:])
    changed = rule.model_copy(update={"examples": examples})
    before = catalogue_hash()
    monkeypatch.setattr(catalogue_module, "CATALOGUE",
                        [changed if r.id == "DE-05" else r for r in CATALOGUE])
    assert catalogue_hash() != before
