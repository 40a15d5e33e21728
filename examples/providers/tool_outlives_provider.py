"""A ``subagent`` tool that stays registered after its provider is removed (breaks ST-02).

The tool ignores the provider's removal, so the model keeps being offered a tool whose every
call fails with ``NO_PROVIDER``. A plugin that subscribes only to "provider added" (it only
needed to know when to register) behaves like this after a hot reload of its backend.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.provider import Provider
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "ST-02"


class StickyTool(SubagentTool):
    def on_provider(self, kind: str, provider: Provider) -> None:
        if kind == "removed":
            return
        if self.mounted is not None and self.host.registry.get(self.name) is self.mounted:
            return
        super().on_provider(kind, provider)


def provider() -> ReferenceTarget:
    return reference_target("tool-outlives-provider", subagent_tool_class=StickyTool)
