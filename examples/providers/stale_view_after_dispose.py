"""A scope's view is memoised when its last restriction is disposed (breaks TF-14).

Disposing a restriction stores the scope's freshly resolved view as a memo; registry changes
drop the memos of restricted scopes only ("an unrestricted scope sees the registry as it is,
nothing to refresh"). So once a scope's *last* restriction is disposed, a global registered (or
unregistered) afterwards never reaches that scope's view: dispose did not give back the live
view the scope had before. The checks once disposed and read at once (it was SUBTLE);
TF-14's check now changes the registry after the disposes, as the fuzzer's *restrict,
dispose, register* does.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope, Tool, ToolRegistry

BREAKS = "TF-14"

_Key = tuple[object, ...]


class MemoResolver(Resolver):
    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__(registry)
        self._memo: dict[str, tuple[Scope, tuple[ResolvedTool, ...], _Key]] = {}
        registry.add_listener(self._on_registry)

    @staticmethod
    def _key(scope: Scope) -> _Key:
        return (scope.restrictions(), tuple(scope.locals()), scope.mode)

    def _on_registry(self, kind: str, tool: Tool) -> None:
        for scope_id, (scope, _, _) in list(self._memo.items()):
            if scope.restrictions():  # the bug: unrestricted scopes keep their memo
                del self._memo[scope_id]

    def remember(self, scope: Scope) -> None:
        self._memo[scope.id] = (scope, super().view(scope), self._key(scope))

    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        if scope is not None:
            memo = self._memo.get(scope.id)
            if memo is not None and memo[2] == self._key(scope):
                return memo[1]
        return super().view(scope)


class MemoHost(Host):
    resolver_class = MemoResolver

    def dispose_restriction(self, agent: str, handle: str) -> None:
        super().dispose_restriction(agent, handle)
        resolver = self.resolver
        assert isinstance(resolver, MemoResolver)
        resolver.remember(self.agent(agent).scope)


def provider() -> Any:
    return ReferenceTarget(host_class=MemoHost, name="stale-view-after-dispose")
