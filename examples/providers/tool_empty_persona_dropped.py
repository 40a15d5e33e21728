"""A ``subagent`` tool that treats an empty configured persona as no persona (breaks EN-03).

In the request-controls edition the tool's configuration carries a ``persona`` for every child
it starts (docs/rules.md#en-03). This tool tests it for truth (``if persona:``) instead of for
presence, so a tool configured with ``persona: ""`` starts children that inherit the deployment
persona, while an explicit empty persona must shadow it with an empty section
(docs/rules.md#pe-03). The fixed check configures a persona with a nonce, never an empty one,
and the old campaign loaded no tool with a persona at all. SUBTLE: the campaign's drawn
load-time controls find it.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "EN-03"
SUBTLE = True


class TruthyPersonaTool(SubagentTool):
    def start_request(self, prompt: str) -> dict[str, Any]:
        request = super().start_request(prompt)
        if not self.config.persona:  # the bug: "" reads as no persona
            request.pop("persona", None)
        return request


def provider() -> ReferenceTarget:
    return reference_target("tool-empty-persona-dropped", subagent_tool_class=TruthyPersonaTool)
