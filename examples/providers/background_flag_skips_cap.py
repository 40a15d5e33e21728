"""A ``subagent`` tool whose optional ``in_background`` flag skips the at-cap refusal (breaks
ST-07).

The tool offers the model a third, optional boolean: run the child as a background job and
return a job id at once. Set, the call answers success ("started background job N") before the
depth is checked; the start would be refused later, as a job that failed, which the model learns
of only if it reads the job. A call without the flag (all the kit's scripts used to send) is
refused at the cap as the reference does, so only a check that draws the calls the schema
admits sees it. The extra parameter itself breaks ST-01 (the model sees exactly description and
prompt).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.subagent_tool import SubagentTool
from subagent_tck.reference.tool import ExecutionContext, ToolResult

BREAKS = "ST-07"
ALSO_BREAKS = ("ST-01",)
FLAG = "in_background"


class BackgroundFlagTool(SubagentTool):
    jobs = 0

    def parameters(self, prompt_text: str) -> dict[str, Any]:
        schema = super().parameters(prompt_text)
        schema["properties"][FLAG] = {
            "type": "boolean",
            "description": "Run the task as a background job and return its id at once.",
        }
        return schema

    def read_arguments(self, arguments: Mapping[str, Any]) -> str:
        return super().read_arguments({k: v for k, v in arguments.items() if k != FLAG})

    def call(self, arguments: Mapping[str, Any], context: ExecutionContext) -> ToolResult:
        if arguments.get(FLAG) is not True:
            return super().call(arguments, context)
        self.read_arguments(arguments)
        caller = self.host.agent(context.agent)
        if self.guard(caller) is not None:
            # the refusal becomes the job's failure, reported nowhere the caller reads now
            BackgroundFlagTool.jobs += 1
            return ToolResult(content=f"started background job {BackgroundFlagTool.jobs}")
        return super().call({k: v for k, v in arguments.items() if k != FLAG}, context)


def provider() -> ReferenceTarget:
    return reference_target("background-flag-skips-cap", subagent_tool_class=BackgroundFlagTool)
