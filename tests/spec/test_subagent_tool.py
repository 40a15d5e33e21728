"""The subagent tool's oracle (spec/subagent_tool.py): which codes a load may be refused with."""

from __future__ import annotations

from subagent_tck.spec import (
    PROVIDER_MANAGED,
    Capability,
    ErrorCode,
    decide_tool_call,
    decide_tool_load,
    mounts,
    tool_cap,
)

ALL = frozenset({Capability.DEPTH_LIMIT, Capability.PERSONA})
NONE: frozenset[Capability] = frozenset()


def test_a_fresh_name_with_a_cap_the_provider_honours_loads() -> None:
    assert decide_tool_load("subagent", 2, (), ALL).ok
    assert decide_tool_load("Subagent", 2, ("subagent",), ALL).ok  # names differ by case


def test_a_taken_name_and_a_cap_outside_the_domain_fail_at_load_in_either_order() -> None:
    assert decide_tool_load("subagent", -1, ("subagent",), ALL).codes == {
        ErrorCode.DUPLICATE_TOOL_NAME, ErrorCode.INVALID_DEPTH, ErrorCode.INVALID_CONFIG}


def test_the_mount_gate_is_reached_only_by_a_load_that_passed_the_load_checks() -> None:
    # a numeric cap on a provider without depthLimit fails at mount (ST-05), which a
    # duplicate load never reaches (ST-04): DUPLICATE_TOOL_NAME alone
    assert decide_tool_load("subagent", 2, (), NONE).codes == {
        ErrorCode.UNSUPPORTED_CAPABILITY}
    assert decide_tool_load("subagent", 2, ("subagent",), NONE).codes == {
        ErrorCode.DUPLICATE_TOOL_NAME}
    assert decide_tool_load("subagent", "1", (), NONE).codes == {
        ErrorCode.INVALID_DEPTH, ErrorCode.INVALID_CONFIG}


def test_provider_managed_and_an_unset_cap_need_no_capability() -> None:
    assert decide_tool_load("subagent", PROVIDER_MANAGED, (), NONE).ok
    assert decide_tool_load("subagent", None, (), NONE).ok
    assert mounts(None, NONE) and not mounts(2, NONE) and not mounts(2, None)


def test_the_cap_of_a_call_and_the_refusal_at_it() -> None:
    assert tool_cap(None, 3) == 3 and tool_cap(PROVIDER_MANAGED, 3) is None
    assert tool_cap(2, 0) == 2
    assert decide_tool_call(1, 0, 1) and not decide_tool_call(0, 0, 1)
    assert not decide_tool_call(-1, 0, 1)  # a stored depth outside the domain: the start's
    assert not decide_tool_call(5, 0, None)
