"""The ``subagent`` tool's description lists every preset of the deployment, the ones the
scope may not start included (breaks SP-02).

Its wording ends with "Roles you can ask for: reviewer, writer, ..." built from the deployment's
presets, whatever spawn policies the calling scope holds: a model that reads it is told of roles
it can never get (docs/rules.md#SP-02). A delegation tool that lists its catalogue once, at
mount, for every agent, does this.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.provider import Provider
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "SP-02"


class CatalogueTool(SubagentTool):
    def wording(self, provider: Provider) -> tuple[str, str]:
        description, prompt = super().wording(provider)
        roles = ", ".join(self.host.presets)
        # the bug: every preset, admitted or not
        return (f"{description} Roles you can ask for: {roles}." if roles else description,
                prompt)


def provider() -> ReferenceTarget:
    return reference_target("tool-lists-every-preset", subagent_tool_class=CatalogueTool)
