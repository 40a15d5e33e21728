"""A turn's end as opencode 1.18.33 records it: its assistant messages (``GET
/session/{id}/message``), read into the kit's stop reason, last text and tool results
(docs/opencode.md, "A call of a tool not offered")."""

from __future__ import annotations

import json
from typing import Any

from subagent_tck.conformance.core.protocol import ToolResult
from subagent_tck.spec import StopReason

#: opencode's answer to a call of a tool it does not offer: the call is rewritten as a call of
#: its internal ``invalid`` tool, whose result says so; where the agent's rules deny
#: ``invalid`` too (an allow list starts with ``"*": deny``), the call itself ends in an error
#: saying the tool is unavailable (docs/opencode.md, "A call of a tool not offered").
INVALID = "invalid"
UNAVAILABLE = "Model tried to call unavailable tool"


def outcome(messages: list[Any]) -> tuple[StopReason, Any, list[ToolResult]]:
    """A turn's end as opencode recorded it (its assistant messages, in order): the stop
    reason, the last text, and the result of every tool call. opencode's refusal of a call of a
    tool it did not offer (:data:`INVALID`) is an errored result with UNKNOWN_TOOL."""
    stop, text, results = StopReason.COMPLETED, None, []
    for message in messages:
        info = message.get("info") or {}
        if info.get("role") != "assistant":
            continue
        if info.get("error"):
            stop = StopReason.ERROR
            text = json.dumps(info["error"])[:500]
        for part in message.get("parts") or []:
            if part.get("type") == "text" and part.get("text"):
                text = part["text"]
            elif part.get("type") == "tool":
                state = part.get("state") or {}
                content = state.get("output", state.get("error"))
                unknown = part.get("tool") == INVALID or (
                    state.get("status") == "error" and UNAVAILABLE in str(content))
                results.append(ToolResult(isError=unknown or state.get("status") == "error",
                                          content=content,
                                          code="UNKNOWN_TOOL" if unknown else None))
    return stop, text, results


def delegated(messages: list[Any], call: str) -> ToolResult | None:
    """What the call ``call`` of the ``task`` tool got, as opencode recorded it in the parent's
    session (its messages, in order): the tool part's state, whose ``status`` ``error`` is
    opencode's errored result (its wire to the model, Chat Completions, carries no flag;
    docs/rules.md#ST-09, docs/opencode.md#st-09); None when no part has that call."""
    for message in messages:
        for part in message.get("parts") or []:
            if part.get("type") == "tool" and part.get("callID") == call:
                state = part.get("state") or {}
                return ToolResult(isError=state.get("status") == "error",
                                  content=state.get("output", state.get("error")))
    return None
