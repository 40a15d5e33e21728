"""A global tool keeps its place over a scope-local tool of the same name (breaks TF-05).

Where the global is admitted, the scope is offered the global's schema and the global body runs;
the local of the same name is ignored (it only shows where a restriction removed the global).
A registry that resolves names globally first and falls back to the scope does this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope
from subagent_tck.spec import Origin

BREAKS = "TF-05"


class GlobalFirstResolver(Resolver):
    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        entries = super().view(scope)
        if scope is None:
            return entries
        tools = self.registry.entries()
        rules = scope.restrictions()
        return tuple(
            tools[e.name]  # the bug: the global wins
            if e.origin is Origin.LOCAL and e.name in tools
            and all(r.admits(e.name) for r in rules)
            else e
            for e in entries
        )


class GlobalFirstHost(Host):
    resolver_class = GlobalFirstResolver


def provider() -> Any:
    return ReferenceTarget(host_class=GlobalFirstHost, name="global-wins-over-local")
