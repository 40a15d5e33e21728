"""A tool named by an allow list stays offered after it is unregistered (breaks TF-11).

The resolver remembers the tools an allow list resolved to; when one is unregistered, scopes
whose every allow list names it keep offering (and running) the old tool, while unrestricted
scopes lose it at once. Caching the resolved tools of a restriction instead of re-reading the
live registry does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ResolvedTool, Resolver, Scope, Tool, ToolRegistry
from subagent_tck.spec import Origin

BREAKS = "TF-11"


class StaleResolver(Resolver):
    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__(registry)
        self.gone: dict[str, Tool] = {}
        registry.add_listener(self._track)

    def _track(self, kind: str, tool: Tool) -> None:
        if kind == "unregistered":
            self.gone[tool.name] = tool
        else:
            self.gone.pop(tool.name, None)

    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        entries = super().view(scope)
        if scope is None:
            return entries
        allows = [r.allow for r in scope.restrictions() if r.allow is not None]
        names = {e.name for e in entries}
        stale = tuple(
            ResolvedTool(name, Origin.GLOBAL, tool)  # the bug: the cached tool is still offered
            for name, tool in self.gone.items()
            if allows and name not in names and all(name in a for a in allows)
        )
        return entries + stale


def provider() -> Any:
    return reference_target("stale-allowed-tools", resolver_class=StaleResolver)
