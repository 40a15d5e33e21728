"""A spawn policy naming presets the deployment lacks is installed anyway (breaks SP-01).

Installing a policy checks its shape but not its names, so a misspelt ``{deny: [Writer]}`` over
the preset ``writer`` is accepted and denies nothing: the scope looks restricted while it is
not (docs/rules.md#SP-01: refused when installed, as TF-08 refuses a filter's unknown names).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope

BREAKS = "SP-01"


class UncheckedNames(Scope):
    def restrict_spawn(self, value: object, presets: Any) -> str:
        named = [n for key in ("allow", "deny") if isinstance(value, dict)
                 for n in value.get(key) or () if isinstance(n, str)]
        return super().restrict_spawn(value, [*presets, *named])  # the bug: any name is known


def provider() -> Any:
    return reference_target("spawn-policy-names-unchecked", scope_class=UncheckedNames)
