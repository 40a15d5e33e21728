"""A ``subagent`` tool that recognises its provider by the identity of the name (breaks ST-02).

``provider.name is not self.config.provider`` instead of ``!=``: with the provider name written
as the same literal in the plugin's configuration and in the provider it passes, but a name read
from a configuration file or a request is a new string, so the tool ignores every add and removal
of its own provider: it outlives the provider's removal and does not come back with it.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.provider import Provider
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "ST-02"


class IdentityTool(SubagentTool):
    def on_provider(self, kind: str, provider: Provider) -> None:
        if provider.name is not self.config.provider:
            return
        super().on_provider(kind, provider)


def provider() -> ReferenceTarget:
    return reference_target("provider-matched-by-identity", subagent_tool_class=IdentityTool)
