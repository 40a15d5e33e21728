"""A conforming target whose ``subagent`` tool and runtime context follow conventions of their
own (BREAKS None).

Two habits of real runtimes that the rules leave open:

- the tool's schema marks no parameter as required (``required`` is absent): the tool checks
  its arguments when it is called and refuses a call without a prompt there. ST-01 fixes which
  parameters the model sees (description and prompt), not which of them the schema requires.
- with runtime context on, every request carries the runtime's own context item (the working
  directory and the session's clock) beside the at-cap notice. ST-08 speaks of the notice to do
  the work directly: other runtime context does not count as a notice, nor as a repeat of one.

A certifier that demands ``required: [..., "prompt"]`` or that counts every runtime-context
item as the at-cap notice gives a false failure here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.agent import Agent
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = None

WORKSPACE = "Working directory: /srv/app. Session clock: turn {turn}."


class NothingRequiredTool(SubagentTool):
    def parameters(self, prompt_text: str) -> dict[str, Any]:
        schema = super().parameters(prompt_text)
        del schema["required"]
        return schema


class WorkspaceContextHost(Host):
    subagent_tool_class = NothingRequiredTool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.context_hooks.insert(0, self.workspace)

    def workspace(self, agent: Agent) -> Sequence[str]:
        """The runtime's own context item, on every request while runtime context is on."""
        return (WORKSPACE.format(turn=len(agent.messages)),)


def provider() -> ReferenceTarget:
    return ReferenceTarget(host_class=WorkspaceContextHost, name="tool-conventions-of-its-own")
