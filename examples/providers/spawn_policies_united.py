"""Several spawn policies on one scope are joined, not intersected (breaks SP-01).

A preset may be started when *any* policy of the scope admits it, so ``{allow: [reviewer,
writer]}`` and ``{deny: [reviewer]}`` together still let ``reviewer`` start. A runtime that
treats each policy as a grant ("this plugin may start these roles") rather than a limit does
this, as the tool filter's union bug does (docs/rules.md#SP-01: several policies intersect).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import Restriction

BREAKS = "SP-01"


class UnitedPolicies(Scope):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.presets: tuple[str, ...] = ()

    def restrict_spawn(self, value: object, presets: Any) -> str:
        self.presets = tuple(presets)
        return super().restrict_spawn(value, presets)

    def spawn_policies(self) -> tuple[Restriction, ...]:
        policies = super().spawn_policies()
        if len(policies) < 2:
            return policies
        # the bug: a union of what each admits
        return (Restriction.of(allow=[n for n in self.presets
                                      if any(p.admits(n) for p in policies)]),)


def provider() -> Any:
    return reference_target("spawn-policies-united", scope_class=UnitedPolicies)
