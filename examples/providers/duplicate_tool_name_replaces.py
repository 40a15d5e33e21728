"""A host where a second ``subagent`` load with a taken toolName silently replaces the first
(breaks ST-04).

Loads are kept in a dictionary by name and a new load simply takes the slot, unloading the old
one. A runtime might treat configuration like that ("last one wins"); the deployment that meant
to expose two providers silently ends up with one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.subagent_tool import COMPONENT
from subagent_tck.spec import SUBAGENT_TOOL_NAME

BREAKS = "ST-04"


class LastLoadWinsHost(Host):
    def load_subagent_tool(self, config: Mapping[str, Any]) -> None:
        name = config.get("toolName", SUBAGENT_TOOL_NAME) if isinstance(config, Mapping) else None
        if isinstance(name, str) and name in self.component_state.get(COMPONENT, {}):
            self.unload_subagent_tool(name)
        super().load_subagent_tool(config)


def provider() -> ReferenceTarget:
    return ReferenceTarget(host_class=LastLoadWinsHost, name="duplicate-tool-name-replaces")
