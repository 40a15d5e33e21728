"""A tool registered in a child's scope is registered in its parent's scope too (breaks TF-13).

Registration is meant to be flat: what one scope installs changes no other scope's view. Here a
local tool registered in a child (through the driver's register_tool) also lands in the
parent's scope, so the parent is offered the child's tool. A plugin system whose child contexts
register through their owner context does this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, Tool

BREAKS = "TF-13"


class LeakyHost(Host):
    def register_tool(self, tool: Tool, agent: str | None = None) -> None:
        super().register_tool(tool, agent)
        if agent is None:
            return
        parent = self.agent(agent).parent
        if parent is not None and parent in {a.id for a in self.agents()}:
            self.agent(parent).scope.add_local(tool)  # the bug: the owner gets it as well


def provider() -> Any:
    return ReferenceTarget(host_class=LeakyHost, name="child-locals-leak-to-parent")
