"""A ``subagent`` tool whose at-cap notice starts one level too late (breaks ST-08).

The notice is sent only when the caller's depth is *past* the cap (``depth > cap``), not when it
is on it: an agent at depth 2 under the cap 2, whose every child would be too deep, is not told
to work directly and spends a call that can only fail. The guard still refuses at the cap. A
check that only ever puts its agent past the cap (depth 3 under caps 2 and 1) sees nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.agent import Agent
from subagent_tck.reference.subagent_tool import SubagentTool
from subagent_tck.spec import check_depth

BREAKS = "ST-08"


class LateNoticeTool(SubagentTool):
    def notice(self, agent: Agent) -> Sequence[str]:
        cap = self.cap()
        depth = check_depth(self.durable_depth(agent)).value
        if cap is not None and depth is not None and depth == cap:
            self._noticed.pop(agent.id, None)
            return ()
        return super().notice(agent)


def provider() -> ReferenceTarget:
    return reference_target("notice-only-past-cap", subagent_tool_class=LateNoticeTool)
