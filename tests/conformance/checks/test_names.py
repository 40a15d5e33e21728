"""The generated tool-name vocabulary of the checks (conformance/engine/checks/_names.py): names in
the
grammar, varied with the seed, often related to each other, judged as whole tokens."""

from __future__ import annotations

import unicodedata

from subagent_tck.conformance.engine.checks._names import (
    EXAMPLES,
    MAX_NAME,
    RESERVED_NAMES,
    is_tool_name,
    strangers,
    tool_names,
)
from subagent_tck.conformance.engine.checks._observed import missing_names
from subagent_tck.spec import ErrorCode, TckError

from ..hypothesis_draws import seeded_draws


def related(a: str, b: str) -> bool:
    return a != b and (a.lower() == b.lower() or a.startswith(b) or b.startswith(a))


def test_every_hand_written_example_is_in_the_grammar() -> None:
    assert all(is_tool_name(n) for n in EXAMPLES)
    assert {"get_weather", "mcp__github__create_issue", "read", "Read", "x" * MAX_NAME} <= set(
        EXAMPLES)


def test_the_grammar_refuses_reserved_empty_long_spaced_and_unnormalised_names() -> None:
    for bad in ("", "x" * (MAX_NAME + 1), "two words", "a.b", "caf\u0065\u0301", "tab\t",
                *RESERVED_NAMES, 3, None):
        assert not is_tool_name(bad), bad
    assert is_tool_name(unicodedata.normalize("NFC", "caf\u0065\u0301"))


def test_drawn_lists_are_distinct_names_of_the_grammar_within_their_bounds() -> None:
    avoid = {"read", "Read"}
    for names in seeded_draws(tool_names(2, 5, avoid=avoid), seed=3, n=50):
        assert 2 <= len(names) <= 5 and len(set(names)) == len(names)
        assert all(is_tool_name(n) for n in names) and not avoid & set(names)


def test_drawn_lists_hold_related_non_ascii_and_long_names_often() -> None:
    lists = seeded_draws(tool_names(1, 8), seed=0, n=100)
    names = [n for names in lists for n in names]
    with_relatives = sum(any(related(a, b) for a in ns for b in ns) for ns in lists)
    assert with_relatives >= len(lists) // 5, with_relatives
    assert sum(not n.isascii() for n in names) >= len(names) // 10
    assert any(len(n) >= MAX_NAME - 8 for n in names)
    assert any(n.lower() != n and n.upper() != n for n in names)  # mixed case


def test_the_names_drawn_change_with_the_seed() -> None:
    first, second = (seeded_draws(tool_names(1, 8), seed=seed, n=20) for seed in (0, 7))
    assert {n for ns in first for n in ns} != {n for ns in second for n in ns}


def test_strangers_look_like_the_names_but_are_none_of_them() -> None:
    names = ["read", "read_file", "検索"]
    others = strangers(names, avoid=["READ"])
    assert others and not set(others) & {*names, "READ"}
    assert all(is_tool_name(n) for n in others)
    assert all(any(related(o, n) or o.lower() == n.lower() for n in names) for o in others)


def test_a_name_is_listed_by_a_message_only_as_a_whole_token() -> None:
    exc = TckError(ErrorCode.INVALID_TOOL_FILTER, "unknown tools: 'read_file', Read-2, 検索x")
    assert missing_names(exc, ["read", "Read", "read_file", "検索"]) == ["read", "Read", "検索"]
    quoted = TckError(ErrorCode.INVALID_TOOL_FILTER, 'not registered: "rea", mcp__a__b.')
    assert missing_names(quoted, ["rea", "mcp__a__b", "mcp__a"]) == ["mcp__a"]
