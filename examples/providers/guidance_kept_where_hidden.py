"""Every guidance section stays in every prompt (breaks TF-16).

A section that explains a tool reaches scopes that cannot see that tool: the runtime builds the
prompt from the deployment's sections without asking which tools the scope was left with. A
runtime that assembles its system prompt once per deployment, or passes MCP server
instructions on whatever the agent's tool filter says, does this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, assemble_sections
from subagent_tck.spec import Section

BREAKS = "TF-16"


class KeepsGuidanceHost(Host):
    def prompt(self, agent: str) -> tuple[Section, ...]:
        scope = self.agent(agent).scope
        guided = {s.guides for s in self.deployment_sections() if s.guides is not None}
        # the bug: every guided tool counts as visible
        visible = {e.name for e in self.resolver.view(scope)} | guided
        return assemble_sections(self.deployment_sections(), scope.sections(), visible,
                                 self.variables, self.render_template)


def provider() -> Any:
    return ReferenceTarget(host_class=KeepsGuidanceHost, name="guidance-kept-where-hidden")
