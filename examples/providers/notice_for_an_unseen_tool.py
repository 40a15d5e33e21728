"""A ``subagent`` tool that gives its at-cap notice to every agent at the cap (breaks ST-08).

The tool asks whether it is mounted, not whether the agent is offered it: an agent at its cap
whose restriction denies the tool, or whose scope-local tool of the same name shadows it, is
still told that "the subagent tool" will refuse it and to work directly, about a tool it cannot
call. The guard and the views are right; only the notice goes to agents it is not for.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.agent import Agent
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "ST-08"


class NoticeForEveryAgentTool(SubagentTool):
    def seen_by(self, agent: Agent) -> bool:
        return self.mounted is not None


def provider() -> ReferenceTarget:
    return reference_target("notice-for-an-unseen-tool",
                            subagent_tool_class=NoticeForEveryAgentTool)
