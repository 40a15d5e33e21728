"""A start at any depth as the traffic adapters' driver plays it
(conformance/transports/traffic_starts.py), on model requests made here: which agent each level
calls, what a refused chain is answered with, and what a chain of made-up ancestors is."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagent_tck.conformance.core.protocol import (
    Message,
    ModelRequest,
    SessionHeader,
    ToolSchema,
)
from subagent_tck.conformance.transports.traffic_starts import (
    Lineage,
    Start,
    parse_token,
    refusal,
    start_marker,
    token,
)
from subagent_tck.spec import ErrorCode

TOOL = "Agent"


def _line(depth: int, tool_filter: Any = None, filler: bool = False) -> Lineage:
    line: Lineage | None = None
    for level in range(1, depth + 1):
        line = Lineage(f"child-{level}", f"tck-child-{level}", None, tool_filter, level,
                       None, line.chain if line is not None else (), filler)
    assert line is not None
    return line


def _start(parent_depth: int, tool_filter: Any = None, probe: bool = False) -> Start:
    links = _line(parent_depth, tool_filter).chain if parent_depth else ()
    child = Lineage("child-9", "tck-child-9", "persona", None, parent_depth + 1, "p", links)
    return Start(9, child, "the task", links, tuple(f"tck-link-9-{k}" for k in
                                                    range(1, len(links) + 1)),
                 SessionHeader(session="child-9-session"), probe=probe)


def _request(offered: bool = True, results: list[Message] | None = None) -> ModelRequest:
    return ModelRequest(agent="", system="", tools=[ToolSchema(name=TOOL)] if offered else [],
                        messages=[Message(role="user", content="go"), *(results or [])])


@given(st.integers(0, 6))
def test_each_level_calls_the_next_agent_of_the_chain_and_the_last_the_new_child(
        depth: int) -> None:
    start = _start(depth)
    for level in range(depth + 1):
        reply = start.drive(_request(), level, TOOL)
        [call] = reply.toolCalls
        assert call.name == TOOL and call.id == start.call_id(level)
        if level == depth:
            assert call.arguments["subagent_type"] == "tck-child-9"
            assert call.arguments["prompt"] == "the task"
        else:  # a link: its own start marker in its task, for a proxy that reads user text
            assert call.arguments["subagent_type"] == f"tck-link-9-{level + 1}"
            assert start_marker(token(9, level + 1)) in call.arguments["prompt"]
        assert parse_token(token(9, level)) == (9, level)


def test_a_level_keeps_the_result_its_call_got_and_ends() -> None:
    start = _start(1)
    result = Message(role="tool", toolCallId=start.call_id(1), content="child said", isError=False)
    reply = start.drive(_request(results=[result]), 1, TOOL)
    assert reply.text == "done" and not reply.toolCalls
    assert start.result == result and start.refused_at() == 0  # level 0 never heard back


def test_a_level_not_offered_the_tool_makes_no_call() -> None:
    start = _start(2)
    reply = start.drive(_request(offered=False), 2, TOOL)
    assert not reply.toolCalls and start.offered[2] is False


@pytest.mark.parametrize(("words", "text", "code"), [
    ({ErrorCode.DEPTH_EXCEEDED: ("nesting limit",)}, "Subagent nesting limit reached",
     ErrorCode.DEPTH_EXCEEDED),
    ({ErrorCode.INVALID_TOOL_FILTER: ("zero tools",)}, "spawned with zero tools",
     ErrorCode.INVALID_TOOL_FILTER),
    ({ErrorCode.DEPTH_EXCEEDED: ("nesting limit",)}, "Agent type 'x' not found",
     ErrorCode.SETUP_FAILED),
])
def test_a_refused_call_is_answered_in_the_code_its_words_map_to(
        words: dict[ErrorCode, tuple[str, ...]], text: str, code: ErrorCode) -> None:
    start = _start(2)
    for level in range(2):  # the links above answered with their callee's words
        start.results[level] = Message(role="tool", toolCallId=start.call_id(level),
                                       content="done", isError=False)
    start.results[2] = Message(role="tool", toolCallId=start.call_id(2), content=text,
                               isError=True)
    assert start.refused_at() == 2
    refused = refusal(start, "Claude Code", TOOL, words, lambda link: True, "")
    assert refused.code is code and (text in refused.message)


@pytest.mark.parametrize(("admits", "code"), [(True, ErrorCode.DEPTH_EXCEEDED),
                                              (False, ErrorCode.UNSUPPORTED_OPERATION)])
def test_a_link_without_the_tool_is_the_depth_cap_where_its_filter_admits_the_tool(
        admits: bool, code: ErrorCode) -> None:
    """Claude Code withholds its delegation tool at the depth cap; a link whose own filter
    leaves the tool out cannot start anything, which no depth explains."""
    start = _start(3)
    start.drive(_request(offered=False), 2, TOOL)
    start.results[0] = start.results[1] = Message(role="tool", content="done")
    refused = refusal(start, "Claude Code", TOOL, {}, lambda link: admits, "")
    assert refused.code is code and "child-2" in refused.message


@pytest.mark.parametrize("admits", [True, False])
def test_a_link_whose_spawn_policy_makes_the_runtime_withhold_the_tool_is_spawn_denied(
        admits: bool) -> None:
    """opencode offers no task to an agent whose task rules end in '*': deny (a policy that
    admits nothing): the start is refused by the policy, whatever the filter says."""
    start = _start(3)
    start.drive(_request(offered=False), 2, TOOL)
    start.results[0] = start.results[1] = Message(role="tool", content="done")
    refused = refusal(start, "opencode", TOOL, {}, lambda link: admits, "",
                      lambda link: link.agent == "child-2")
    assert refused.code is ErrorCode.SPAWN_DENIED and "child-2" in refused.message
    assert refusal(start, "opencode", TOOL, {}, lambda link: admits, "",
                   lambda link: False).code is not ErrorCode.SPAWN_DENIED


def test_a_chain_shorter_than_its_depth_probes_without_starting_a_child() -> None:
    deep = Lineage("agent-1", "", None, None, 2**53 - 1, None, _line(8, filler=True).chain,
                   filler=True)
    assert deep.truncated and len(deep.chain) == 9
    assert not _line(3).truncated
    start = _start(2, probe=True)
    reply = start.drive(_request(), 2, TOOL)
    assert not reply.toolCalls and start.reached


def test_an_agent_at_depth_zero_runs_no_link() -> None:
    top = Lineage("agent-1", "", None, None, 0, None, filler=True)
    assert top.chain == () and not top.truncated


def test_a_refusal_in_the_runtimes_words_counts_where_the_wire_has_no_error_flag() -> None:
    """opencode's chat wire carries a refused task call as an ordinary tool result: the link at
    depth 1 was refused by the depth cap, so the parent below it never called, and the start
    is the cap's refusal (DEPTH_EXCEEDED), not a setup that failed."""
    start = _start(3)
    words = {ErrorCode.DEPTH_EXCEEDED: ("Subagent depth limit reached",)}
    start.results[0] = Message(role="tool", toolCallId=start.call_id(0), content="done")
    start.results[1] = Message(role="tool", toolCallId=start.call_id(1), content=(
        "Subagent depth limit reached (1). Increase \"subagent_depth\" to allow nested "
        "subagents."))
    assert start.refused_at() == 2  # level 2 never called: by the flags alone, a setup failure
    refused = refusal(start, "opencode", "task", words, lambda link: True, "no child session")
    assert refused.code is ErrorCode.DEPTH_EXCEEDED
    assert "child-1 at depth 1" in refused.message and "limit reached (1)" in refused.message
    assert refusal(start, "opencode", "task", {}, lambda link: True,
                   "no child session").code is ErrorCode.SETUP_FAILED  # no words, no cap
