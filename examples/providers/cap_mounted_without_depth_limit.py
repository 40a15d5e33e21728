"""A ``subagent`` tool that mounts a numeric maxDepth on a provider without ``depthLimit``
(breaks ST-05).

The capability gate at mount skips ``depthLimit``, so the misconfiguration only shows when the
model first calls the tool and the start is refused (CA-01). A runtime might skip the check
because "the tool enforces the cap itself"; the deployment still believes the provider bounds
the tree.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.provider import Provider
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "ST-05"


class UngatedTool(SubagentTool):
    def gate(self, provider: Provider) -> None:
        if self.config.persona is not None or self.config.tool_filter is not None:
            super().gate(provider)


def provider() -> ReferenceTarget:
    return reference_target("cap-mounted-without-depth-limit", subagent_tool_class=UngatedTool)
