"""What an adapter that sees a runtime only from its model traffic cannot express, and says so
(traffic.py): the operations such a runtime has no counterpart for are answered
``UNSUPPORTED_OPERATION`` (docs/driver-api.md#unsupported-operations) with the runtime's own
words for what it offers instead (its page's "Operations" section, :class:`Reasons`); the
subagent-tool component's operations, which such a target does not list, ``INVALID_CONFIG``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, TypedDict

from subagent_tck.conformance.core.protocol import (
    AgentRef,
    SdkCall,
    SessionHeader,
    SubagentToolConfig,
    ToolResult,
)
from subagent_tck.spec import ErrorCode, PresentationMode, TckError


class Reasons(TypedDict):
    """A runtime's words for the refusals whose wording differs between runtimes (its page's
    "Operations" section): what it offers instead, or ``(what it has no, what instead)``."""

    create_agent: str  # instead of top-level agents with a stored delegation depth
    put_session_header: str  # instead of writable session headers
    resume: tuple[str, str]  # a known session's cold resume
    register_tool: str  # instead of scope-local tools
    install_restriction: str  # instead of live restriction of a running agent's tools
    start: tuple[str, str]  # a start whose parent is not the root
    run_turn: str  # instead of turns of a finished subagent run by the host
    set_host_depth: tuple[str, str]


class Refusals(ABC):
    """The refusals of a deployment seen from its model traffic (a base of
    :class:`~subagent_tck.conformance.transports.traffic.TrafficDeployment`)."""

    runtime: ClassVar[str]  # its name in messages: "Claude Code"
    page: ClassVar[str]  # what its refusals cite: "docs/claude-code.md#operations"
    reasons: ClassVar[Reasons]
    tool: str  # the runtime's subagent tool

    @abstractmethod
    def sessions(self) -> list[SessionHeader]: ...

    @abstractmethod
    def _known(self, agent: str) -> None: ...

    def _unsupported(self, what: str, instead: str) -> TckError:
        """The answer to an optional operation the runtime cannot express (docs/driver-api.md
        lists which operations may be answered so)."""
        return TckError(ErrorCode.UNSUPPORTED_OPERATION,
                        f"{self.runtime} has no {what}: {instead} ({self.page})")

    def _no_component(self, what: str, instead: str) -> TckError:
        """The subagent-tool component's operations: the target lists no such component, so the
        kit never asks for them; a call is a malformed configuration."""
        return TckError(ErrorCode.INVALID_CONFIG,
                        f"{self.runtime} has no {what}: {instead} ({self.page})")

    def create_agent(self, *, header_depth: Any = 0, runtime_depth: Any = None,
                     has_runtime_depth: bool = False) -> AgentRef:
        raise self._unsupported("top-level agents with a stored delegation depth",
                                self.reasons["create_agent"])

    def put_session_header(self, header: SessionHeader) -> None:
        raise self._unsupported("writable session headers", self.reasons["put_session_header"])

    def resume(self, session: str) -> AgentRef:
        if session not in {h.session for h in self.sessions()}:
            raise TckError(ErrorCode.UNKNOWN_SESSION, f"no session {session!r}")
        raise self._unsupported(*self.reasons["resume"])

    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise self._unsupported("live restriction of a running agent's tools",
                                self.reasons["install_restriction"])

    def dispose_restriction(self, agent: str, handle: str) -> None:
        raise self._unsupported("live restriction of a running agent's tools",
                                "nothing to dispose")

    def install_spawn_policy(self, agent: str, policy: Any) -> str:
        raise self._unsupported("spawn policies installed on a running agent",
                                "an agent's spawn policy is part of its definition, written "
                                "before it starts")

    def dispose_spawn_policy(self, agent: str, handle: str) -> None:
        raise self._unsupported("spawn policies installed on a running agent",
                                "an agent's spawn policy is part of its definition")

    def set_mode(self, agent: str, mode: PresentationMode) -> None:
        self._known(agent)
        if mode is not PresentationMode.NATIVE:
            raise self._unsupported(f"{mode.value} presentation mode", "every tool is native")

    def execute(self, agent: str, name: str, arguments: dict[str, Any]) -> ToolResult:
        raise self._unsupported("direct tool execution outside a model turn",
                                "a tool runs when the agent's model calls it (run-turn)")

    def sdk_bindings(self, agent: str) -> list[str]:
        self._known(agent)
        return []

    def run_code(self, agent: str, calls: list[SdkCall]) -> list[ToolResult]:
        self._known(agent)  # native only: run_code is never offered, no name is bound
        return [ToolResult(isError=True, code="UNKNOWN_TOOL",
                           content=f"{self.runtime} has no run_code tool") for _ in calls]

    def load_subagent_tool(self, config: SubagentToolConfig) -> None:
        raise self._no_component("configurable subagent tool", f"its {self.tool} tool is built "
                                 "in")

    def unload_subagent_tool(self, tool_name: str) -> None:
        raise self._no_component("configurable subagent tool", f"its {self.tool} tool is built "
                                 "in")

    def set_runtime_context(self, enabled: bool) -> None:
        raise self._unsupported("switch for the context it gives its agents", "each request "
                                "carries what the runtime puts in it")
