"""A conforming target that offers every view in reverse order (BREAKS None).

No rule fixes the order of a view (docs/rules.md, TF note): the oracle's order is admitted globals
in registration order, then locals, then ``run_code``; this target lists the same entries
backwards, in its schemas and SDK bindings alike. A certifier that compared views as lists
would fail it falsely.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ResolvedTool, Resolver, Scope

BREAKS = None


class ReversedResolver(Resolver):
    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        return tuple(reversed(super().view(scope)))


def provider() -> Any:
    return reference_target("reversed-view-order", resolver_class=ReversedResolver)
