"""A loop that computes a child's tool schemas once per turn (breaks FR-05).

The first request of a turn resolves the view; later requests of the same turn reuse that tool
list. A global tool registered while the child waits for its model is therefore missing from
the next request even where the child's deny-only filter admits it (and one unregistered would
still be offered). Caching the tool list per turn is a common optimisation of agent loops.

ALSO_BREAKS TF-09, TF-11: where a scope's restrictions are put through a child's preset or the
root's own definition, the view TF-09..TF-11 speak of is read from the request after a registry
change made during the turn (docs/rules.md#TF-09): a tool registered then is missing from it, one
unregistered still offered, by the same cache.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, AgentLoop, Host, ModelRequest, RunResult, ToolSchema
from subagent_tck.reference.tool import AbortSignal

BREAKS = "FR-05"
ALSO_BREAKS = ("TF-09", "TF-11")


class FrozenToolsLoop(AgentLoop):
    def __init__(self, host: Host, max_steps: int = 16) -> None:
        super().__init__(host, max_steps)
        self.frozen: dict[str, tuple[ToolSchema, ...]] = {}

    def run(self, agent: Agent, prompt: str, signal: AbortSignal | None = None) -> RunResult:
        self.frozen.pop(agent.id, None)  # a new turn resolves the tools again
        return super().run(agent, prompt, signal)


class FrozenToolsHost(Host):
    loop_class = FrozenToolsLoop

    def build_request(self, agent: Agent) -> ModelRequest:
        request = super().build_request(agent)
        assert isinstance(self.loop, FrozenToolsLoop)
        tools = self.loop.frozen.setdefault(agent.id, request.tools)  # the bug: reused
        return replace(request, tools=tools)


def provider() -> Any:
    return ReferenceTarget(host_class=FrozenToolsHost, name="tools-frozen-per-turn")
