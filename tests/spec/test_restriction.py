"""The restriction oracle (spec/restriction.py): admission and validation (TF-01, TF-07, TF-08)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.spec import ErrorCode, Restriction, validate_restriction

FAST = settings(max_examples=60, deadline=None)
NAMES = st.sampled_from(["a", "b", "c", "d", "e"])
LISTS = st.one_of(st.none(), st.lists(NAMES, max_size=5))


@FAST
@given(LISTS, LISTS, NAMES)
def test_one_restriction_admits_allow_minus_deny(
    allow: list[str] | None, deny: list[str] | None, name: str
) -> None:
    admitted = Restriction.of(allow, deny).admits(name)
    assert admitted == ((allow is None or name in allow) and (deny is None or name not in deny))


def test_an_absent_list_is_none_and_a_given_list_is_frozen() -> None:
    assert Restriction.of() == Restriction(None, None)
    assert Restriction.of(["a", "a"], []) == Restriction(frozenset({"a"}), frozenset())


def test_a_valid_restriction_is_returned_without_a_code() -> None:
    verdict = validate_restriction({"allow": ["a"], "deny": None}, ["a", "b"])
    assert verdict.ok and verdict.restriction == Restriction.of(["a"], None)
    assert verdict.reason == "" and verdict.offending == ()


@pytest.mark.parametrize("value", [{}, {"allow": None}, {"allow": None, "deny": None}])
def test_a_filter_without_lists_is_refused(value: object) -> None:
    verdict = validate_restriction(value, ["a"])
    assert verdict.code is ErrorCode.INVALID_TOOL_FILTER and verdict.restriction is None
    assert "TF-07" in verdict.reason and not verdict.ok


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (None, "must be an object"),
        (["a"], "must be an object"),
        ({"allow": "a"}, "allow must be a list of tool names, got str"),
        ({"deny": b"a"}, "deny must be a list of tool names, got bytes"),
        ({"allow": {"a": 1}}, "got dict"),
        ({"deny": ["a", 3]}, "deny must hold only strings, got 3"),
    ],
)
def test_a_malformed_filter_is_refused_with_what_is_wrong(value: object, says: str) -> None:
    verdict = validate_restriction(value, ["a"])
    assert verdict.code is ErrorCode.INVALID_TOOL_FILTER and says in verdict.reason


def test_every_unknown_name_is_listed_once_in_order_of_appearance() -> None:
    verdict = validate_restriction(
        {"allow": ["raed", "a", "run_code"], "deny": ["raed", "notes"]}, ["a"]
    )
    assert verdict.offending == ("raed", "run_code", "notes")
    assert "raed, run_code, notes" in verdict.reason and "TF-08" in verdict.reason


@FAST
@given(LISTS, LISTS, st.lists(NAMES, unique=True))
def test_a_filter_is_valid_iff_it_has_a_list_and_names_only_globals(
    allow: list[str] | None, deny: list[str] | None, globals_: list[str]
) -> None:
    verdict = validate_restriction({"allow": allow, "deny": deny}, globals_)
    named = set(allow or ()) | set(deny or ())
    expected = (allow is not None or deny is not None) and named <= set(globals_)
    assert verdict.ok == expected
    if not verdict.ok and named - set(globals_):
        assert set(verdict.offending) == named - set(globals_)
