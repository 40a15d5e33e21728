"""A parent at depth 2^53-1 starts a child at 2^53 (breaks DE-08).

The child's depth is the parent's plus one with no check that it stays a safe integer: without
a cap the child is recorded at 2^53, where a JavaScript number can no longer count by one, and
with ``maxDepth: 2^53-1`` the start is refused as "exceeded" instead of as an invalid depth.
Incrementing without a bound check does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ABSENT, MAX_SAFE_INTEGER, ErrorCode, TckError, check_depth

BREAKS = "DE-08"


class UnboundedStart(ChildStart):
    def decide_depth(self) -> None:
        depths = [self.host.store.header(self.parent.session).depth()]
        runtime = check_depth(self.parent.runtime_depth)
        if runtime.value is not None:  # an invalid runtime depth is refused below (DE-07)
            depths.append(runtime.value)
        cap = check_depth(self.asked["maxDepth"]).value
        invalid = (self.parent.runtime_depth is not ABSENT and runtime.value is None) or (
            self.asked["maxDepth"] is not ABSENT and cap is None)
        if max(depths) != MAX_SAFE_INTEGER or invalid:
            super().decide_depth()
            return
        child = max(depths) + 1  # the bug: no safe-integer check
        if cap is not None and child > cap:
            raise TckError(ErrorCode.DEPTH_EXCEEDED, f"child depth {child} > maxDepth {cap}")
        self.child_depth = child


def provider() -> Any:
    return reference_target("no-overflow-check", child_start_class=UnboundedStart)
