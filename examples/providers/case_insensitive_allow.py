"""An allow list is compared case-insensitively (breaks TF-01).

``{allow: ["read"]}`` also admits a global tool named ``Read``. Tool names are case-sensitive
identifiers, so the filter admits a tool it never named. A runtime that normalises names for
matching ("users type Read or read") does this. The checks once used distinct lower-case names
only and missed it (it was SUBTLE: only the fuzzer's ``read``/``Read`` found it); their names
are generated now, with case twins among the explicit cases and often among drawn names, so
certify finds it at every seed. The same folded allow list shows where an empty deny list
stands beside it (TF-03) and where a case twin is registered later (TF-10).
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope
from subagent_tck.spec import Restriction

BREAKS = "TF-01"
#: The same case-folded allow list wherever a view is composed: the empty and one-entry lists of
#: TF-03, tools registered later (TF-10), and every child whose view, first request, published
#: snapshot, resumed request or later requests carry that composition (EN-01, FR-01, FR-02,
#: FR-04, FR-05): each shows the extra tool that differs from an allowed one only by case.
ALSO_BREAKS = ("TF-03", "TF-10", "EN-01", "FR-01", "FR-02", "FR-04", "FR-05")


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
