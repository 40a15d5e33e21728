"""A child's session header records depth 0 instead of its derived depth (breaks DE-01).

The runtime counts depth on its live agents (a child of a live parent is refused or allowed
correctly), but the header it stores for a child keeps the default ``delegationDepth: 0``.
Anyone reading the header sees a top-level agent. A runtime that keeps depth in memory only and
never writes it into the durable record does this.

ALSO_BREAKS DE-09: resume reads the header back, so a resumed child starts again at depth 0 and
a cap no longer holds across a restart, which is why DE-01 asks for the durable record. ST-06
and ST-07: the ``subagent`` tool judges the calling agent's durable depth, so a child at the
tool's cap is taken for a top-level agent and may start a grandchild. DE-06: a live parent's
stored header rewritten outside the domain is never read again, so its next start goes on from
the depth in memory instead of failing.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart, Descriptor
from subagent_tck.spec import TckError, decide_start_depth

BREAKS = "DE-01"
ALSO_BREAKS = ("DE-09", "ST-06", "ST-07", "DE-06")


class InMemoryDepthStart(ChildStart):
    def decide_depth(self) -> None:
        """Derive from the live parent's depth (what the runtime trusts) rather than the header."""
        decision = decide_start_depth(
            self.parent.depth, self.parent.runtime_depth, self.asked["maxDepth"]
        )
        if decision.child_depth is None:
            assert decision.code is not None
            raise TckError(decision.code, decision.reason)
        self.child_depth = decision.child_depth

    def publish(self, child: Agent, descriptor: Descriptor) -> None:
        super().publish(child, descriptor)
        header = self.host.store.header(child.session)
        self.host.store.put_header(  # the bug: the header keeps the default depth
            child.session, header.parent, "0", header.descriptor
        )


def provider() -> Any:
    return reference_target("depth-not-recorded", child_start_class=InMemoryDepthStart)
