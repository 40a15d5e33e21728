"""A ``subagent`` tool that never bridges its abort signal to the child run (breaks ST-09).

When the parent's turn is aborted the child keeps running: it makes further model requests and
calls tools until it finishes on its own. Forgetting to wire a cancellation token through to
the work it started is an easy omission; the aborted user still pays for the child.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ToolResult
from subagent_tck.reference.delegation import Run
from subagent_tck.reference.subagent_tool import SubagentTool
from subagent_tck.reference.tool import ExecutionContext

BREAKS = "ST-09"


class UnbridgedTool(SubagentTool):
    def collect(self, run: Run, context: ExecutionContext) -> ToolResult:
        try:
            result = run.result()
        finally:
            run.dispose()
        return self.outcome(result)


def provider() -> ReferenceTarget:
    return reference_target("abort-not-bridged", subagent_tool_class=UnbridgedTool)
