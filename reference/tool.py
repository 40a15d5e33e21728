"""A tool, its result and the context its body runs in (TF-05, TF-12).

A tool body is a plain callable ``body(arguments, context) -> content``. It may return a
:class:`ToolResult` to control the error flag itself; raising :class:`~subagent_tck.spec.TckError`
gives an error result carrying that code. The body learns who called it (``context.agent``) and
can watch an :class:`AbortSignal`, which is what the ``subagent`` tool bridges to a child run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from subagent_tck.spec import RUN_CODE, ErrorCode, Origin, TckError

#: The default parameter schema of a tool that takes an object of any shape.
OBJECT_SCHEMA: Mapping[str, Any] = {"type": "object"}


class AbortSignal:
    """A one-way flag with callbacks: once aborted, it stays aborted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._aborted = False
        self.reason = ""
        self._callbacks: list[Callable[[str], None]] = []

    @property
    def aborted(self) -> bool:
        return self._aborted

    def abort(self, reason: str = "aborted") -> None:
        """Abort (idempotent); callbacks run once, in registration order."""
        with self._lock:
            if self._aborted:
                return
            self._aborted = True
            self.reason = reason
            callbacks = list(self._callbacks)
        for callback in callbacks:
            callback(reason)

    def on_abort(self, callback: Callable[[str], None]) -> None:
        """Run ``callback(reason)`` on abort, at once when already aborted."""
        with self._lock:
            if not self._aborted:
                self._callbacks.append(callback)
                return
        callback(self.reason)


@dataclass(frozen=True)
class ExecutionContext:
    """What a tool body learns about its call: the calling agent, the abort signal, the host."""

    agent: str
    signal: AbortSignal
    #: The :class:`~.host.Host` running the call (typed loosely to keep modules acyclic).
    host: Any = None
    call_id: str = ""


ToolBody = Callable[[Mapping[str, Any], ExecutionContext], Any]


@dataclass(frozen=True)
class ToolResult:
    """What a call gave back; an error carries a stable ``code`` where one applies."""

    is_error: bool = False
    code: str | None = None
    content: Any = None

    @classmethod
    def error(cls, code: str | None, message: str) -> ToolResult:
        return cls(True, code, message)

    def to_json(self) -> dict[str, Any]:
        return {"isError": self.is_error, "code": self.code, "content": self.content}


@dataclass(frozen=True)
class ToolSchema:
    """One wire tool schema of a model request."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=lambda: dict(OBJECT_SCHEMA))


@dataclass(frozen=True)
class Tool:
    """A named tool with its schema and body. Registered globally or in one scope."""

    name: str
    body: ToolBody
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=lambda: dict(OBJECT_SCHEMA))

    def schema(self) -> ToolSchema:
        return ToolSchema(self.name, self.description, self.parameters)


class ResolvedTool(NamedTuple):
    """One entry of a view: the name, where it comes from, and the tool whose body runs."""

    name: str
    origin: Origin
    tool: Tool


def validate_tool(tool: object) -> Tool:
    """Refuse a malformed tool (``INVALID_REQUEST``) and the reserved name (``RESERVED_NAME``,
    TF-06). Shared by the global registry and every scope."""
    if not isinstance(tool, Tool):
        raise TckError(ErrorCode.INVALID_REQUEST, "register a reference Tool(name, body, ...)")
    if not isinstance(tool.name, str) or not tool.name:
        raise TckError(ErrorCode.INVALID_REQUEST, "a tool needs a non-empty string name")
    if not callable(tool.body):
        raise TckError(ErrorCode.INVALID_REQUEST, f"tool {tool.name!r} needs a callable body")
    if not isinstance(tool.parameters, Mapping) or not isinstance(tool.description, str):
        raise TckError(
            ErrorCode.INVALID_REQUEST,
            f"tool {tool.name!r}: parameters must be a JSON schema object, description a string",
        )
    if tool.name == RUN_CODE:
        raise TckError(
            ErrorCode.RESERVED_NAME,
            f"{RUN_CODE!r} is reserved for code execution (TF-06); choose another tool name",
        )
    return tool
