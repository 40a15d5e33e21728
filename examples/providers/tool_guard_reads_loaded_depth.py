"""A ``subagent`` tool whose cap guard reads the caller's depth as it was loaded (breaks ST-07).

The tool checks a call against the cap with the depth the calling agent got when it was created
or resumed, kept on the agent object, instead of its durable header depth at the time of the
call. While nothing rewrites a live agent's stored header the two agree, which is every call the
fixed checks and the old campaign made; once the stored ``delegationDepth`` of a live session
changes (a header written under it), the guard decides with a stale depth: a call at the cap of
the host's depth setting starts a child (no cap travels in that start), where it must give an
errored result and start nothing (docs/rules.md#st-07; the cap's depth is the durable one,
docs/rules.md#de-02). SUBTLE: the campaign rewrites stored headers under live agents and calls
the tool from them.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "ST-07"
SUBTLE = True


class LoadedDepthTool(SubagentTool):
    def durable_depth(self, agent: Agent) -> object:
        return agent.depth  # the bug: the depth the agent was made with, not the stored one


def provider() -> Any:
    return reference_target("tool-guard-reads-loaded-depth", subagent_tool_class=LoadedDepthTool)
