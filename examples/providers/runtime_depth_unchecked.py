"""A runtime subagentDepth outside the domain is ignored (breaks DE-07).

When an agent's runtime depth is negative, fractional, NaN, a string and so on, the start acts
as if the agent had no runtime depth and derives the child from the header alone. A runtime
that validates the durable header but treats the runtime option as a best-effort hint does
this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ABSENT, check_depth

BREAKS = "DE-07"


class LenientRuntimeStart(ChildStart):
    def decide_depth(self) -> None:
        runtime = self.parent.runtime_depth
        if runtime is ABSENT or check_depth(runtime).ok:
            super().decide_depth()
            return
        self.parent.runtime_depth = ABSENT  # the bug: a bad runtime depth is dropped
        try:
            super().decide_depth()
        finally:
            self.parent.runtime_depth = runtime


def provider() -> Any:
    return reference_target("runtime-depth-unchecked", child_start_class=LenientRuntimeStart)
