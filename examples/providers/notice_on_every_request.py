"""A ``subagent`` tool that appends its at-cap notice to every request (breaks ST-08).

The notice hook does not remember what it already told the agent, so each request at the cap
repeats it. It is the simplest hook to write; the conversation fills with copies of one notice
and the model is nagged on every step.
"""

from __future__ import annotations

from collections.abc import Sequence

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.agent import Agent
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "ST-08"


class RepeatingNoticeTool(SubagentTool):
    def notice(self, agent: Agent) -> Sequence[str]:
        notices = super().notice(agent)
        self._noticed.pop(agent.id, None)  # forget: the next request gets it again
        return notices


def provider() -> ReferenceTarget:
    return reference_target("notice-on-every-request", subagent_tool_class=RepeatingNoticeTool)
