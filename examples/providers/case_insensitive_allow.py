"""An allow list is compared case-insensitively (breaks TF-01). SUBTLE: found by fuzzing.

``{allow: ["read"]}`` also admits a global tool named ``Read``. Tool names are case-sensitive
identifiers, so the filter admits a tool it never named. A runtime that normalises names for
matching ("users type Read or read") does this. The fixed checks use distinct lower-case names
and never meet two globals that differ only in case; the fuzzer's alphabet holds ``read`` and
``Read``, so a sequence such as *register read, register Read, restrict {allow: [read]}* shows
``Read`` in the view.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope
from subagent_tck.spec import Restriction

BREAKS = "TF-01"
SUBTLE = True


class _CaseFoldedScope:
    """The scope as the broken resolver reads it: allow lists widened by case folding."""

    def __init__(self, scope: Scope) -> None:
        self._scope = scope

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scope, name)

    def restrictions(self) -> tuple[Restriction, ...]:
        names = self._scope.registry.names()
        out = []
        for r in self._scope.restrictions():
            if r.allow is not None:  # the bug: "read" in allow admits "Read" too
                folded = {a.casefold() for a in r.allow}
                r = Restriction(r.allow | {n for n in names if n.casefold() in folded}, r.deny)
            out.append(r)
        return tuple(out)


class CaseFoldingResolver(Resolver):
    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        if scope is None:
            return super().view(None)
        return super().view(_CaseFoldedScope(scope))  # type: ignore[arg-type]


class CaseFoldingHost(Host):
    resolver_class = CaseFoldingResolver


def provider() -> Any:
    return ReferenceTarget(host_class=CaseFoldingHost, name="case-insensitive-allow")
