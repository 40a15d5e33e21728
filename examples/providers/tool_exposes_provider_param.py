"""A ``subagent`` tool whose schema offers the model a ``provider`` selector (breaks ST-01).

The tool adds a third parameter naming the registered providers and honours it when the model
fills it in. A runtime might do this to save loading the tool once per transport; it hands the
model a choice of backend that only the deployment should make.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.subagent_tool import SubagentTool

BREAKS = "ST-01"


class ProviderParamTool(SubagentTool):
    def parameters(self, prompt_text: str) -> dict[str, Any]:
        schema = super().parameters(prompt_text)
        names = [p.name for p in self.host.providers.all()]
        schema["properties"]["provider"] = {"type": "string", "enum": names}
        return schema

    def read_arguments(self, arguments: Mapping[str, Any]) -> str:
        return super().read_arguments({k: v for k, v in arguments.items() if k != "provider"})


def provider() -> ReferenceTarget:
    return reference_target("tool-exposes-provider-param", subagent_tool_class=ProviderParamTool)
