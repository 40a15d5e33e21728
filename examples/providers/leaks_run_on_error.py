"""A ``subagent`` tool that disposes its run only when the child completed (breaks ST-09).

Disposal sits after the result on the happy path instead of in a ``finally``: a child that
errors, is refused, hits max-tokens or is aborted stays published with its session and agent
alive. A leak like this is easy to write and invisible until a long session runs out of room.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ToolResult
from subagent_tck.reference.delegation import Run
from subagent_tck.reference.subagent_tool import SubagentTool
from subagent_tck.reference.tool import ExecutionContext
from subagent_tck.spec import StopReason

BREAKS = "ST-09"


class LeakyTool(SubagentTool):
    def collect(self, run: Run, context: ExecutionContext) -> ToolResult:
        context.signal.on_abort(run.cancel)
        result = run.result()
        if result.stop_reason is StopReason.COMPLETED:
            run.dispose()
        return self.outcome(result)


def provider() -> ReferenceTarget:
    return reference_target("leaks-run-on-error", subagent_tool_class=LeakyTool)
