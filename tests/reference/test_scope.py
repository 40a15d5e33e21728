from __future__ import annotations

import pytest

from subagent_tck.reference import PromptSection, Scope, ToolRegistry, parse_mode
from subagent_tck.spec import ErrorCode, PresentationMode, Restriction, TckError

from .conftest import echo


@pytest.fixture
def scope() -> Scope:
    registry = ToolRegistry()
    for name in ("a", "b", "c"):
        registry.register(echo(name))
    return Scope("s1", registry)


def test_a_restriction_is_validated_installed_and_disposed_by_handle(scope: Scope) -> None:
    handle = scope.restrict({"allow": ["a", "b"], "deny": ["b"]})
    assert scope.restrictions() == (Restriction.of(["a", "b"], ["b"]),)
    assert scope.dispose(handle) is True
    assert scope.restrictions() == ()


def test_disposing_twice_is_harmless(scope: Scope) -> None:
    handle = scope.restrict({"deny": ["a"]})
    scope.dispose(handle)
    assert scope.dispose(handle) is False


@pytest.mark.parametrize("handle", ["s1/r99", "other/r1", 7])
def test_a_handle_never_issued_is_unknown_restriction(scope: Scope, handle: object) -> None:
    with pytest.raises(TckError) as caught:
        scope.dispose(handle)  # type: ignore[arg-type]
    assert caught.value.code is ErrorCode.UNKNOWN_RESTRICTION


@pytest.mark.parametrize(
    ("value", "offending"),
    [
        ({}, []),
        ({"allow": None, "deny": None}, []),
        ("a", []),
        ({"allow": "a"}, []),
        ({"allow": ["a", 1]}, []),
        ({"allow": ["a", "nope", "run_code"], "deny": ["zz", "nope"]}, ["nope", "run_code", "zz"]),
    ],
)
def test_an_invalid_filter_installs_nothing_and_lists_offending_names(
    scope: Scope, value: object, offending: list[str]
) -> None:
    with pytest.raises(TckError) as caught:
        scope.restrict(value)
    assert caught.value.code is ErrorCode.INVALID_TOOL_FILTER
    assert caught.value.details["offending"] == offending
    assert scope.restrictions() == ()


def test_a_name_known_only_as_a_local_tool_is_offending(scope: Scope) -> None:
    scope.add_local(echo("mine"))
    with pytest.raises(TckError) as caught:
        scope.restrict({"deny": ["mine"]})
    assert caught.value.details["offending"] == ["mine"]


def test_installed_values_are_copied(scope: Scope) -> None:
    allow = ["a"]
    scope.restrict({"allow": allow})
    allow.append("b")
    assert scope.restrictions() == (Restriction.of(["a"]),)


def test_local_tools_refuse_run_code_and_duplicates(scope: Scope) -> None:
    scope.add_local(echo("a"))
    with pytest.raises(TckError) as dup:
        scope.add_local(echo("a"))
    with pytest.raises(TckError) as reserved:
        scope.add_local(echo("run_code"))
    assert (dup.value.code, reserved.value.code) == (
        ErrorCode.DUPLICATE_TOOL,
        ErrorCode.RESERVED_NAME,
    )
    assert list(scope.locals()) == ["a"]


def test_removing_a_missing_local_is_unknown_tool(scope: Scope) -> None:
    with pytest.raises(TckError) as caught:
        scope.remove_local("a")
    assert caught.value.code is ErrorCode.UNKNOWN_TOOL


def test_a_scoped_section_of_the_same_name_is_replaced_in_place(scope: Scope) -> None:
    scope.add_section(PromptSection("x", "1"))
    scope.add_section(PromptSection("y", "2"))
    scope.add_section(PromptSection("x", "3"))
    assert scope.sections() == (PromptSection("x", "3"), PromptSection("y", "2"))
    scope.remove_section("x")
    assert scope.sections() == (PromptSection("y", "2"),)
    with pytest.raises(TckError) as caught:
        scope.remove_section("x")
    assert caught.value.code is ErrorCode.INVALID_REQUEST


@pytest.mark.parametrize("mode", ["native", "ptc", "both", PresentationMode.PTC])
def test_a_presentation_mode_parses_from_its_value(mode: object) -> None:
    assert parse_mode(mode) is PresentationMode(mode)


@pytest.mark.parametrize("mode", ["PTC", "", None, 1])
def test_an_unknown_presentation_mode_is_an_invalid_request(mode: object) -> None:
    with pytest.raises(TckError) as caught:
        parse_mode(mode)
    assert caught.value.code is ErrorCode.INVALID_REQUEST
