"""A ``subagent`` tool that reports a child which completed with no text as failed (breaks
ST-09).

"No output means something went wrong" is an easy guess to write: the tool turns a completed
run whose output is empty into an errored result. But the run completed, and a completed run's
output is the tool result, however short (docs/rules.md#st-09); a child that finished a task
with nothing to add is not a failure. The fixed check's children always answer with text, and
so did every child of the old campaign. SUBTLE: the campaign's children now answer with nothing
too.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ToolResult
from subagent_tck.reference.loop import RunResult
from subagent_tck.reference.subagent_tool import SubagentTool
from subagent_tck.spec import StopReason

BREAKS = "ST-09"
SUBTLE = True


class NoOutputIsErrorTool(SubagentTool):
    def outcome(self, result: RunResult) -> ToolResult:
        if result.stop_reason is StopReason.COMPLETED and result.output in (None, ""):
            return ToolResult.error(None, "the child produced no output")  # the bug
        return super().outcome(result)


def provider() -> ReferenceTarget:
    return reference_target("empty-output-as-error", subagent_tool_class=NoOutputIsErrorTool)
