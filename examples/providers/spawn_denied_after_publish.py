"""A start the spawn policies refuse is refused only after the child was published (breaks
SP-01).

The runtime creates and publishes the child, then asks whether its parent may start that preset
and refuses with SPAWN_DENIED. The refusal's code is right, but an agent, a session header and
an ``agent.published`` event stay behind: a refused start must create nothing
(docs/rules.md#SP-01, as DE-04). Checking permissions "once the child exists" does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart, Descriptor
from subagent_tck.reference.agent import Agent

BREAKS = "SP-01"


class LateDenial(ChildStart):
    def check_spawn_policy(self) -> None:
        """Moved after publication (below)."""

    def publish(self, child: Agent, descriptor: Descriptor) -> None:
        super().publish(child, descriptor)
        super().check_spawn_policy()  # the bug: the child is already observable


def provider() -> Any:
    return reference_target("spawn-denied-after-publish", child_start_class=LateDenial)
