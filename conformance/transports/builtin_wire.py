"""The reference's values as the driver API's (conformance/core/protocol.py), for the built-in
target (builtin.py): its model requests sent to the kit's gateway, its tool results and view
entries, and names handed over as a wire would hand them."""

from __future__ import annotations

import functools
from typing import Any

from subagent_tck import reference as ref
from subagent_tck.spec import Origin

from ..core.gateway import Gateway
from ..core.protocol import (
    Message,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolSchema,
    ViewEntry,
)


class GatewayModel:
    """Adapts the reference model interface to the kit's gateway."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def complete(self, request: ref.ModelRequest) -> ref.ModelReply:
        wire = ModelRequest(
            agent=request.agent,
            system=request.system,
            tools=[
                ToolSchema(name=t.name, description=t.description, parameters=dict(t.parameters))
                for t in request.tools
            ],
            messages=[
                Message(
                    role=m.role,
                    content=m.content,
                    toolCalls=[
                        ToolCall(id=c.id, name=c.name, arguments=dict(c.arguments))
                        for c in m.tool_calls
                    ],
                    toolCallId=m.tool_call_id,
                    isError=m.is_error,
                )
                for m in request.messages
            ],
            context=list(request.context),
            model=request.model,
        )
        reply = self.gateway.complete(wire)
        return ref.ModelReply(
            reply.text,
            tuple(ref.ToolCall(c.id, c.name, dict(c.arguments)) for c in reply.toolCalls),
            reply.stopReason,
        )


def fresh(name: Any) -> Any:
    """An equal string that is not the caller's object, as one read off a wire would be: a
    target that compares names by identity (``is``) fails in-process as it fails over HTTP,
    instead of passing because the kit hands back the very string it registered
    (docs/certify.md#generated-cases). One-character strings are shared by Python whatever is
    done; anything that is not a string is passed as it is."""
    if not isinstance(name, str):
        return name
    return name.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


@functools.lru_cache(maxsize=4096)
def view_entry(name: str, origin: Origin, description: str) -> ViewEntry:
    """One (frozen) ViewEntry per distinct entry: views are read many thousand times in a
    certification, and a model validated afresh each time was a few percent of it."""
    return ViewEntry(name=name, origin=origin, description=description)


def tool_result(result: ref.ToolResult) -> ToolResult:
    return ToolResult(isError=result.is_error, code=result.code, content=result.content)
