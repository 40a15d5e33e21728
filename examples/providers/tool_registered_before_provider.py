"""A ``subagent`` tool that registers at load whether or not its provider exists (breaks ST-02).

The tool is registered as soon as it is loaded, with fresh-child wording, and the provider's
arrival is ignored. A plugin might do this when it assumes the backend plugin is listed, and so
started, first; with a loader that starts plugins concurrently the model is offered a tool whose
provider is not there, and whose wording was never derived from it.

ALSO_BREAKS ST-05: a tool mounted before its provider exists cannot check the provider's
capabilities, so a numeric maxDepth ends up mounted on a provider without depthLimit.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Tool
from subagent_tck.reference.provider import Provider
from subagent_tck.reference.subagent_tool import FRESH_DESCRIPTION, FRESH_PROMPT, SubagentTool

BREAKS = "ST-02"
ALSO_BREAKS = ("ST-05",)


class EagerTool(SubagentTool):
    def load(self) -> None:
        super().load()
        if self.mounted is None:
            tool = Tool(self.name, self.call, FRESH_DESCRIPTION, self.parameters(FRESH_PROMPT))
            self.host.registry.register(tool)
            self.mounted = tool

    def on_provider(self, kind: str, provider: Provider) -> None:
        if kind == "added" and self.mounted is not None:
            return  # already registered at load: nothing to do
        super().on_provider(kind, provider)


def provider() -> ReferenceTarget:
    return reference_target("tool-registered-before-provider", subagent_tool_class=EagerTool)
