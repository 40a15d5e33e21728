"""A ``subagent`` tool that never bridges its abort signal to the child run (breaks ST-09).

When the parent's turn is aborted the child keeps running: it makes further model requests and
calls tools until it finishes on its own. Forgetting to wire a cancellation token through to
the work it started is an easy omission; the aborted user still pays for the child.
"""

from __future__ import annotations

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ToolResult
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


class UnbridgedHost(Host):
    subagent_tool_class = UnbridgedTool


def provider() -> ReferenceTarget:
    return ReferenceTarget(host_class=UnbridgedHost, name="abort-not-bridged")
