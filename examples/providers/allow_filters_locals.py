"""Allow lists filter scope-local tools as well as globals (breaks TF-04).

Local tools are supposed to be added after the global filter; here every allow list of the
scope also applies to them, so a local tool the allow list does not name is hidden. A runtime
that filters the merged tool list (globals plus locals) instead of the globals alone does this.

ALSO_BREAKS TF-03: under ``allow: []`` the scope's locals disappear, which TF-03 forbids in so
many words ("scope-local tools and the reserved transport stay"). EN-01, FR-01 and FR-02: a
child composed with an allow list and an output schema loses its scope-local
``structured_output``, so its composed view, its first request and its view at publication are
all short of it.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope
from subagent_tck.spec import Origin

BREAKS = "TF-04"
ALSO_BREAKS = ("TF-03", "EN-01", "FR-01", "FR-02")


class AllowFiltersLocalsResolver(Resolver):
    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        entries = super().view(scope)
        if scope is None:
            return entries
        allows = [r.allow for r in scope.restrictions() if r.allow is not None]
        return tuple(
            e for e in entries
            if e.origin is not Origin.LOCAL or all(e.name in a for a in allows)  # the bug
        )


class AllowFiltersLocalsHost(Host):
    resolver_class = AllowFiltersLocalsResolver


def provider() -> Any:
    return ReferenceTarget(host_class=AllowFiltersLocalsHost, name="allow-filters-locals")
