"""``allow: []`` hides the scope's own tools too (breaks TF-03).

An empty allow list is meant to hide every *global* tool while scope-local tools stay; here a
scope with an empty allow list is offered no local tool either (``run_code`` stays). A runtime
that reads ``allow: []`` as "this agent gets no tools" makes this mistake.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ResolvedTool, Resolver, Scope
from subagent_tck.spec import Origin

BREAKS = "TF-03"


class EmptyAllowResolver(Resolver):
    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        entries = super().view(scope)
        if scope is None or not any(r.allow == frozenset() for r in scope.restrictions()):
            return entries
        return tuple(e for e in entries if e.origin is not Origin.LOCAL)  # the bug


def provider() -> Any:
    return reference_target("empty-allow-hides-locals", resolver_class=EmptyAllowResolver)
