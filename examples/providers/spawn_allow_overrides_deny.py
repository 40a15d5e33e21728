"""A spawn policy's allow list wins over its deny list (breaks SP-01).

A policy with both lists admits a preset it names in both: ``{allow: [reviewer, writer], deny:
[writer]}`` still lets the scope start ``writer``. This is the "Order Deny,Allow" reading of
access lists, the tool filter's TF-01 bug carried over to presets: a runtime that reads a deny
entry as "unless allowed" does it (docs/rules.md#SP-01: allow before deny, so deny wins).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import Restriction

BREAKS = "SP-01"


class AllowWinsScope(Scope):
    def spawn_policies(self) -> tuple[Restriction, ...]:
        # the bug: a denied preset that the allow list names is admitted
        return tuple(p if p.allow is None or p.deny is None
                     else Restriction(p.allow, p.deny - p.allow)
                     for p in super().spawn_policies())


def provider() -> Any:
    return reference_target("spawn-allow-overrides-deny", scope_class=AllowWinsScope)
