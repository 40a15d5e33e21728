"""The filter hides tool schemas but not lookup or execution (breaks TF-12).

The model is not offered a filtered tool, but a lookup finds it and a forged call runs its
body: the filter is presentation only. The seed names this alternative ("Hide only tool
schemas") and rejects it; a runtime that filters the schema list sent to the model but executes
calls against the full registry does this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope
from subagent_tck.spec import Origin

BREAKS = "TF-12"


class SchemasOnlyResolver(Resolver):
    def lookup(self, scope: Scope | None, name: str) -> ResolvedTool | None:
        entry = super().lookup(scope, name)
        tool = self.registry.get(name)
        if entry is None and tool is not None:  # the bug: the full registry answers
            return ResolvedTool(name, Origin.GLOBAL, tool)
        return entry


class SchemasOnlyHost(Host):
    resolver_class = SchemasOnlyResolver


def provider() -> Any:
    return ReferenceTarget(host_class=SchemasOnlyHost, name="schemas-only-filter")
