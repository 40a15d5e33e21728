"""A ``subagent`` tool that returns whatever the child produced as a successful result
(breaks ST-09).

The stop reason is ignored: a child cut off by max-tokens, refusing, failing or aborted hands
its partial text back as if it had finished. Returning "the output" without looking at why the
run stopped is a common shortcut; the parent model then builds on a half answer.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ToolResult
from subagent_tck.reference.loop import RunResult
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "ST-09"


class PartialOutputTool(SubagentTool):
    def outcome(self, result: RunResult) -> ToolResult:
        return ToolResult(content=result.output)


def provider() -> ReferenceTarget:
    return reference_target("partial-output-as-success", subagent_tool_class=PartialOutputTool)
