"""A runtime subagentDepth replaces the header depth instead of deepening it (breaks DE-02).

When an agent has a runtime depth, the start derives the child from it alone, so a parent at
header depth 3 with runtime depth 0 starts a child at depth 1. The runtime option is meant to be
able to make the parent deeper, never shallower; a runtime that lets an explicit option win over
the stored value does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ABSENT, TckError, check_depth, decide_start_depth

BREAKS = "DE-02"


class RuntimeWinsStart(ChildStart):
    def decide_depth(self) -> None:
        runtime = self.parent.runtime_depth
        if runtime is ABSENT or not check_depth(runtime).ok:
            super().decide_depth()
            return
        self.host.store.header(self.parent.session).depth()  # the header is still validated
        decision = decide_start_depth(runtime, ABSENT, self.asked["maxDepth"])  # the bug
        if decision.child_depth is None:
            assert decision.code is not None
            raise TckError(decision.code, decision.reason)
        self.child_depth = decision.child_depth


def provider() -> Any:
    return reference_target("runtime-overrides-header", child_start_class=RuntimeWinsStart)
