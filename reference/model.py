"""The model interface of the agent loop, and a scripted recording model for tests.

A :class:`ModelRequest` carries the assembled system text (PE-04), the wire tool schemas of the
scope (per presentation mode: ``ptc`` carries only ``run_code``), the messages, the runtime
``context`` notices contributed by hooks (ST-08) and the ``model`` the agent runs on (MO-01). A
:class:`ModelReply` is text or tool calls, with a :class:`spec.StopReason`.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from subagent_tck.spec import StopReason

from .tool import ToolSchema


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Message:
    """One conversation message: ``system``, ``user``, ``assistant`` or ``tool``."""

    role: str
    content: Any = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "content": self.content,
            "toolCalls": [
                {"id": c.id, "name": c.name, "arguments": dict(c.arguments)}
                for c in self.tool_calls
            ],
            "toolCallId": self.tool_call_id,
            "isError": self.is_error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Message:
        return cls(
            str(data["role"]),
            data.get("content"),
            tuple(
                ToolCall(str(c["id"]), str(c["name"]), dict(c.get("arguments") or {}))
                for c in data.get("toolCalls") or ()
            ),
            data.get("toolCallId"),
            bool(data.get("isError", False)),
        )


@dataclass(frozen=True)
class ModelRequest:
    agent: str
    system: str
    tools: tuple[ToolSchema, ...]
    messages: tuple[Message, ...]
    context: tuple[str, ...] = ()
    #: The model the agent runs on (MO-01; None: it names none).
    model: str | None = None


@dataclass(frozen=True)
class ModelReply:
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: StopReason = StopReason.COMPLETED


class Model(Protocol):
    """Anything that answers a request (the kit's gateway through an adapter, or a script)."""

    def complete(self, request: ModelRequest) -> ModelReply: ...


Reply = ModelReply | Callable[[ModelRequest], ModelReply]


class ScriptedModel:
    """Replies from scripts keyed by a marker found in an agent's user messages; records every
    request. Unscripted agents (and exhausted scripts) get ``default``."""

    def __init__(self, default: ModelReply | None = None) -> None:
        self.default = default or ModelReply(text="done")
        self._lock = threading.Lock()
        self._scripts: dict[str, deque[Reply]] = {}
        self._bound: dict[str, str] = {}
        self.requests: list[ModelRequest] = []

    def script(self, marker: str, *replies: Reply) -> str:
        with self._lock:
            self._scripts[marker] = deque(replies)
        return marker

    def complete(self, request: ModelRequest) -> ModelReply:
        with self._lock:
            self.requests.append(request)
            marker = self._bound.get(request.agent)
            if marker is None:
                user = "\n".join(
                    str(m.content) for m in request.messages if m.role == "user"
                )
                for candidate in self._scripts:
                    if candidate in user and candidate not in self._bound.values():
                        marker = self._bound[request.agent] = candidate
                        break
            queue = self._scripts.get(marker) if marker is not None else None
            step: Reply = queue.popleft() if queue else self.default
        return step(request) if callable(step) else step

    def requests_of(self, agent: str) -> list[ModelRequest]:
        with self._lock:
            return [r for r in self.requests if r.agent == agent]
