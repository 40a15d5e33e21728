"""A conforming target that offers every view in reverse order (BREAKS None).

No rule fixes the order of a view (docs/rules.md, TF note): the oracle's order is admitted globals
in registration order, then locals, then ``run_code``; this target lists the same entries
backwards, in its schemas and SDK bindings alike. A certifier that compared views as lists
would fail it falsely.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope

BREAKS = None


class ReversedResolver(Resolver):
    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        return tuple(reversed(super().view(scope)))


class ReversedHost(Host):
    resolver_class = ReversedResolver


def provider() -> Any:
    return ReferenceTarget(host_class=ReversedHost, name="reversed-view-order")
