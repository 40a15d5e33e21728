"""A host that keys ``subagent`` tool loads by their name ignoring case (breaks ST-04).

Configuration keys are often normalised (``toolName.lower()``) so that ``Subagent`` and
``subagent`` "mean the same tool". But tool names are case-sensitive on the model's wire and in
the registry: a second load named ``SUBAGENT`` beside ``subagent`` is a distinct tool that must
coexist with the first (docs/rules.md#st-04: distinct names coexist), and this host refuses it
as a duplicate. The fixed check loads ``subagent`` and ``subagent_acp``, and the old campaign
drew its names from three fixed words: neither ever loaded two names that differ only in case.
SUBTLE: the campaign's drawn tool names find it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.subagent_tool import COMPONENT
from subagent_tck.spec import SUBAGENT_TOOL_NAME, ErrorCode, TckError

BREAKS = "ST-04"
SUBTLE = True


class FoldedNamesHost(Host):
    def load_subagent_tool(self, config: Mapping[str, Any]) -> None:
        name = config.get("toolName", SUBAGENT_TOOL_NAME) if isinstance(config, Mapping) else None
        loaded = self.component_state.get(COMPONENT, {})
        if isinstance(name, str) and any(n.casefold() == name.casefold() for n in loaded):
            raise TckError(ErrorCode.DUPLICATE_TOOL_NAME,  # the bug: "Subagent" is "subagent"
                           f"a subagent tool named {name!r} is already loaded")
        super().load_subagent_tool(config)


def provider() -> ReferenceTarget:
    return ReferenceTarget(host_class=FoldedNamesHost, name="tool-names-fold-case")
