"""A tool's nested parameters reach the model flattened (breaks FR-01).

The tool schemas of a child's first request carry the tools' parameters (docs/rules.md#FR-01:
"filtered tool schemas"). This runtime converts each schema to its wire format one level deep:
a property that is itself an object or an array keeps its type and loses its ``properties`` or
``items``, so the model is told ``{"type": "object"}`` where it should see the fields to fill
in. Names, order, filtering and flat parameters are right; the checks compared the tools of a
request by name, registered them with ``{"type": "object"}`` alone, and certified it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, Host, ModelRequest

BREAKS = "FR-01"


def _flat(parameters: Mapping[str, Any]) -> dict[str, Any]:
    props = parameters.get("properties")
    if not isinstance(props, Mapping):
        return dict(parameters)
    shallow = {name: ({"type": p.get("type")} if isinstance(p, Mapping)
                      and ("properties" in p or "items" in p) else p)
               for name, p in props.items()}  # the bug: nested schemas lose their fields
    return {**parameters, "properties": shallow}


class FlatteningHost(Host):
    def build_request(self, agent: Agent) -> ModelRequest:
        request = super().build_request(agent)
        tools = tuple(dataclasses.replace(t, parameters=_flat(t.parameters))
                      for t in request.tools)
        return dataclasses.replace(request, tools=tools)


def provider() -> Any:
    return ReferenceTarget(host_class=FlatteningHost, name="nested-tool-parameters-flattened")
