"""A ``subagent`` tool that gates its configured persona and toolFilter but never puts them in
the start request (breaks EN-03).

The tool is configured with a persona and a tool filter for its children (request-controls
edition); the capability gate at mount sees them, but the start request the tool builds carries
neither, so every child gets the deployment persona and every global tool. A tool that builds
its request from the model's arguments alone, forgetting its own configuration, behaves like
this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "EN-03"


class ForgetfulTool(SubagentTool):
    def start_request(self, prompt: str) -> dict[str, Any]:
        request = super().start_request(prompt)
        request.pop("persona", None)  # the bug: the configured controls are dropped
        request.pop("toolFilter", None)
        return request


def provider() -> ReferenceTarget:
    return reference_target("tool-controls-not-forwarded", subagent_tool_class=ForgetfulTool)
