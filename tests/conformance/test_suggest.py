""""Did you mean": spellings of a known name find it; names close to nothing find nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from subagent_tck.conformance.core.suggest import closest, closest_rule, hint, rule_hint
from subagent_tck.conformance.transports.targets import SCHEMES
from subagent_tck.spec import CATALOGUE, Edition

RULE_IDS = [r.id for r in CATALOGUE]
NAME_SETS = [list(SCHEMES), [e.value for e in Edition], RULE_IDS,
             ["rules", "explain", "certify", "fuzz", "fuzz-api", "serve", "openapi"]]


@st.composite
def rule_spellings(draw: st.DrawFn) -> tuple[str, str]:
    rule = draw(st.sampled_from(RULE_IDS))
    family, number = rule.split("-")
    family = draw(st.sampled_from([family, family.lower(), family.title()]))
    sep = draw(st.sampled_from(["-", "_", "", " "]))
    digits = draw(st.sampled_from([str(int(number)), number, "0" + number]))
    return rule, f"{family}{sep}{digits}"


@given(rule_spellings())
def test_any_spelling_of_a_rule_id_finds_it(case: tuple[str, str]) -> None:
    rule, spelling = case
    assert closest_rule(spelling, RULE_IDS) == rule
    assert rule_hint(spelling, RULE_IDS) in ("", f" (did you mean {rule}?)")


@st.composite
def recased(draw: st.DrawFn) -> tuple[list[str], str, str]:
    names = draw(st.sampled_from(NAME_SETS))
    name = draw(st.sampled_from(names))
    flips = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    spelt = "".join(c.upper() if f else c.lower() for c, f in zip(name, flips, strict=True))
    return names, name, spelt.replace("-", draw(st.sampled_from(["-", "_"])))


@given(recased())
def test_a_name_in_other_case_or_with_underscores_finds_it(
    case: tuple[list[str], str, str],
) -> None:
    names, name, spelt = case
    assert closest(spelt, names) == name


@given(st.sampled_from(NAME_SETS), st.text("0123456789#%", min_size=1, max_size=12))
def test_a_word_like_no_name_gets_no_suggestion(names: list[str], word: str) -> None:
    assert closest(word, names) is None and hint(word, names) == ""


def test_known_typos_find_their_names() -> None:
    assert closest("refernce", SCHEMES) == "reference"
    assert closest("pyhton", SCHEMES) == "python"
    assert closest("certfy", NAME_SETS[3]) == "certify"
    assert hint("spwan", ["spawn", "fork", "acp"]) == " (did you mean 'spawn'?)"
    assert hint("spawn", ["spawn"]) == ""  # the name itself is no suggestion
