"""A small agent loop over the model interface (TF-12, FR-01, FR-05).

Each step sends one :class:`~.model.ModelRequest` built by the host from the agent's scope as it
is *now* (system text, wire schemas, messages, context notices), so later requests keep the
first request's composition and follow only live registry changes (FR-05). Tool calls are
executed through the resolver: a forged call gets the ``UNKNOWN_TOOL`` error result and the turn
goes on (TF-12). Steps are bounded; an abort stops the turn with ``aborted``; a model that
raises stops it with ``error``. Completed turns are persisted for fork and resume.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from subagent_tck.spec import StopReason

from .agent import Agent
from .model import Message, Model, ModelRequest
from .resolver import Resolver
from .tool import AbortSignal, ExecutionContext, ToolResult


class LoopHost(Protocol):
    """What the loop needs of the host that runs it (the host sits above the loop and hands
    itself in: :class:`~.host.Host` is one)."""

    model: Model
    resolver: Resolver
    #: the abort signal of each agent's running turn
    running_turns: dict[str, AbortSignal]

    def build_request(self, agent: Agent) -> ModelRequest:
        """The agent's next request, composed from its scope as it is now (FR-05)."""
        ...

    def persist_turns(self, agent: Agent) -> None:
        """Store the agent's completed turns (fork seeding, resume)."""
        ...


@dataclass
class RunResult:
    agent: str
    session: str
    depth: int
    stop_reason: StopReason
    output: Any = None
    tool_results: list[ToolResult] = field(default_factory=list)


class AgentLoop:
    def __init__(self, host: LoopHost, max_steps: int = 16) -> None:
        self.host = host
        self.max_steps = max_steps

    def run(self, agent: Agent, prompt: str, signal: AbortSignal | None = None) -> RunResult:
        """One turn: the user ``prompt`` then model steps until a reply without tool calls."""
        signal = signal or AbortSignal()
        running = self.host.running_turns
        previous = running.get(agent.id)
        running[agent.id] = signal
        try:
            return self._steps(agent, prompt, signal)
        finally:
            if previous is None:
                running.pop(agent.id, None)
            else:
                running[agent.id] = previous

    def _steps(self, agent: Agent, prompt: str, signal: AbortSignal) -> RunResult:
        agent.messages.append(Message("user", prompt))
        results: list[ToolResult] = []
        for _ in range(self.max_steps):
            if signal.aborted:
                return self._finish(agent, StopReason.ABORTED, signal.reason, results)
            request = self.host.build_request(agent)
            try:
                reply = self.host.model.complete(request)
            except Exception as exc:  # the model failed: the turn ends with an error
                return self._finish(agent, StopReason.ERROR, f"model failed: {exc}", results)
            if signal.aborted:
                return self._finish(agent, StopReason.ABORTED, signal.reason, results)
            if not reply.tool_calls:
                agent.messages.append(Message("assistant", reply.text))
                output = agent.structured_output if agent.structured_output is not None else (
                    reply.text
                )
                return self._finish(agent, reply.stop_reason, output, results)
            agent.messages.append(Message("assistant", reply.text, tuple(reply.tool_calls)))
            for call in reply.tool_calls:
                context = ExecutionContext(agent.id, signal, self.host, call.id)
                result = self.host.resolver.execute(
                    agent.scope, call.name, call.arguments, context
                )
                results.append(result)
                agent.messages.append(
                    Message("tool", result.content, (), call.id, result.is_error)
                )
            if reply.stop_reason is not StopReason.COMPLETED:
                return self._finish(agent, reply.stop_reason, reply.text, results)
        return self._finish(
            agent, StopReason.ERROR, f"stopped after {self.max_steps} model steps", results
        )

    def _finish(
        self, agent: Agent, reason: StopReason, output: Any, results: list[ToolResult]
    ) -> RunResult:
        self.host.persist_turns(agent)
        return RunResult(agent.id, agent.session, agent.depth, reason, output, results)
