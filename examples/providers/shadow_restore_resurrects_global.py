"""Removing a shadowing local brings back a global that is gone (breaks TF-11).

A scope-local tool named like a global one displaces the global in that scope; this runtime
keeps the displaced global entry aside and swaps it back when the local is unregistered. The
kept entry is the scope's own reference, which unregistering the global never reaches: after
*register global read, register local read, unregister global read, unregister local read*
the scope still offers (and runs) the removed global ``read``. The checks once removed globals
while locals stayed, or locals while globals stayed (it was SUBTLE); TF-11's check now plays
that interleaving on every drawn state.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope, Tool, ToolRegistry
from subagent_tck.spec import Origin

BREAKS = "TF-11"


class SwapBackResolver(Resolver):
    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__(registry)
        #: scope id -> name -> the global a local displaced, and the ones swapped back
        self.displaced: dict[str, dict[str, Tool]] = {}
        self.swapped_back: dict[str, dict[str, Tool]] = {}

    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        entries = super().view(scope)
        if scope is None or not self.swapped_back.get(scope.id):
            return entries
        present = {e.name for e in entries}
        back = [
            ResolvedTool(name, Origin.GLOBAL, tool)
            for name, tool in self.swapped_back[scope.id].items()
            if name not in present and all(r.admits(name) for r in scope.restrictions())
        ]
        plain = [e for e in entries if e.origin is not Origin.RESERVED]
        reserved = [e for e in entries if e.origin is Origin.RESERVED]
        return (*plain, *back, *reserved)


class SwapBackHost(Host):
    resolver_class = SwapBackResolver

    def _swaps(self) -> SwapBackResolver:
        resolver = self.resolver
        assert isinstance(resolver, SwapBackResolver)
        return resolver

    def register_tool(self, tool: Tool, agent: str | None = None) -> None:
        displaced = self.registry.get(tool.name) if agent is not None else None
        super().register_tool(tool, agent)
        if agent is not None and displaced is not None:
            scope_id = self.agent(agent).scope.id
            self._swaps().displaced.setdefault(scope_id, {})[tool.name] = displaced
            self._swaps().swapped_back.get(scope_id, {}).pop(tool.name, None)

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        super().unregister_tool(name, agent)
        if agent is not None:
            scope_id = self.agent(agent).scope.id
            kept = self._swaps().displaced.get(scope_id, {}).pop(name, None)
            if kept is not None:  # the bug: the scope keeps its own reference to the global
                self._swaps().swapped_back.setdefault(scope_id, {})[name] = kept


def provider() -> Any:
    return ReferenceTarget(host_class=SwapBackHost, name="shadow-restore-resurrects-global")
