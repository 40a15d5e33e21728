"""A start that carries a depth cap skips the spawn-policy check (breaks SP-01).

The runtime treats ``maxDepth`` as the start's whole admission: a start with a cap is judged by
the cap alone, so a scope whose policy refuses ``writer`` still starts ``writer`` when the
start says how deep the tree may grow. A refactor that moves the policy check into the branch
for uncapped starts does this; only a case that combines a spawn policy with a cap shows it
(docs/rules.md#SP-01: every start of a preset the scope's policies refuse is refused).

ALSO_BREAKS CA-04: the provider advertises spawnPolicy, and the check that an advertised control
takes effect starts its refused grandchild under a cap (docs/rules.md#CA-04), which this bug
lets through: the same bug, seen as a control that does not take effect.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart

BREAKS = "SP-01"
ALSO_BREAKS = ("CA-04",)


class CapAdmitsStart(ChildStart):
    def check_spawn_policy(self) -> None:
        if self.request.get("maxDepth") is not None:
            return  # the bug: a capped start is admitted by its cap alone
        super().check_spawn_policy()


def provider() -> Any:
    return reference_target("spawn-policy-skipped-under-cap", child_start_class=CapAdmitsStart)
