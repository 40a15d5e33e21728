"""The oracle of a runtime's declared filter grammar (spec/grammar.py): what an entry matches,
which entries are known, and a restriction read under the grammar."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagent_tck.spec import Restriction, validate_restriction
from subagent_tck.spec.grammar import (
    ALL,
    ALLOW_WINS,
    CATALOGUE,
    PREFIX,
    SERVER,
    TOOL,
    Form,
    Grammar,
    Tool,
    expand,
    known,
    matches,
)

MCP = Grammar((Form("mcp__{server}", SERVER), Form("mcp__{server}__*", SERVER),
               Form("mcp__*", ALL), Form("mcp__{server}__{prefix}*", PREFIX),
               Form("mcp__{server}__{tool}", TOOL)))
TOOLS = [Tool("read", "files"), Tool("read_file", "files"), Tool("write", "files"),
         Tool("fetch", "web"), Tool("plain")]


@pytest.mark.parametrize(("entry", "matched"), [
    ("mcp__files", {"read", "read_file", "write"}),
    ("mcp__files__*", {"read", "read_file", "write"}),
    ("mcp__*", {"read", "read_file", "write", "fetch", "plain"}),
    ("mcp__files__read*", {"read", "read_file"}),
    ("mcp__files__read_*", {"read_file"}),
    ("mcp__web__read*", set()),
    ("mcp__files__read", {"read"}),
    ("mcp__web__read", set()),
    ("read", {"read"}),
    ("READ", set()),
    ("mcp__nowhere", set()),
])
def test_an_entry_matches_the_tools_its_declared_form_means(entry: str, matched: set[str]) -> None:
    assert matches(entry, MCP, TOOLS) == matched


def test_an_entry_whose_spelling_two_tools_share_matches_both_and_nothing_else() -> None:
    # the kit draws server names without "_" so that its own cases are never read two ways
    tools = [Tool("a__b", "s"), Tool("b", "s__a"), Tool("c", "s")]
    assert matches("mcp__s__a__b", MCP, tools) == {"a__b", "b"}
    assert matches("mcp__s__a", MCP, tools) == {"b"}


def test_case_folding_matches_names_and_spellings_in_any_case() -> None:
    folded = Grammar(MCP.forms, case_insensitive=True)
    assert matches("READ", folded, TOOLS) == {"read"}
    assert matches("MCP__FILES__READ*", folded, TOOLS) == {"read", "read_file"}
    assert matches("Mcp__Web", folded, TOOLS) == {"fetch"}
    assert folded.variants and "case folding" in folded.variants[0]


@pytest.mark.parametrize(("entry", "is_known"), [
    ("read", True), ("mcp__files", True), ("mcp__files__zz*", True), ("mcp__*", True),
    ("mcp__nowhere", False), ("mcp__nowhere__r*", False), ("mcp__files__zz", False),
    ("reed", False),
])
def test_an_entry_is_known_when_it_matches_a_tool_or_is_a_wildcard_over_a_real_server(
        entry: str, is_known: bool) -> None:
    assert known(entry, MCP, TOOLS) is is_known


def test_every_tool_form_is_known_with_no_server_when_it_names_none() -> None:
    assert known("mcp__*", MCP, [Tool("x")])
    assert not known("mcp__s__x*", MCP, [Tool("x")])


def test_a_restriction_is_read_over_the_registry_as_it_is_now() -> None:
    deny = {"deny": ["mcp__files"], "allow": None}
    assert expand(deny, MCP, TOOLS) == Restriction.of(None, ["read", "read_file", "write"])
    later = [*TOOLS, Tool("list", "files")]
    assert "list" in (expand(deny, MCP, later).deny or ())


def test_allow_wins_drops_the_deny_list_beside_an_allow_list() -> None:
    raw = {"allow": ["mcp__files"], "deny": ["read"]}
    assert expand(raw, MCP, TOOLS).admits("read") is False
    winning = Grammar(MCP.forms, precedence=ALLOW_WINS)
    assert expand(raw, winning, TOOLS).admits("read") is True
    assert expand({"deny": ["read"]}, winning, TOOLS).admits("read") is False
    assert any("allow-wins" in v for v in winning.variants)


def test_a_list_that_is_not_a_list_is_a_check_bug() -> None:
    with pytest.raises(ValueError, match="list of entries"):
        expand({"allow": "read"}, MCP, TOOLS)


def test_a_form_spells_its_slots() -> None:
    assert Form("mcp__{server}__{prefix}*", PREFIX).spell(server="s", prefix="re") == "mcp__s__re*"
    assert Form("{tool}", TOOL).spell(tool="t") == "t"


NAMES = st.lists(st.text("abcXY_", min_size=1, max_size=5), min_size=1, max_size=6,
                 unique=True)


@given(NAMES.flatmap(lambda names: st.tuples(
    st.just(names), st.lists(st.sampled_from(names), max_size=len(names)),
    st.lists(st.sampled_from(names), max_size=len(names)))))
def test_under_the_catalogues_grammar_a_restriction_reads_as_the_catalogue_reads_it(
        case: tuple[list[str], list[str], list[str]]) -> None:
    names, allow, deny = case
    raw = {"allow": allow, "deny": deny}
    verdict = validate_restriction(raw, names)
    assert verdict.restriction is not None
    read = expand(raw, CATALOGUE, [Tool(n) for n in names])
    assert {n for n in names if read.admits(n)} == {n for n in names
                                                    if verdict.restriction.admits(n)}
    assert all(known(n, CATALOGUE, [Tool(m) for m in names]) for n in names)
