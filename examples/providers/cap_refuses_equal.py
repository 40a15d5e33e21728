"""A child whose depth equals maxDepth is refused (breaks DE-03).

The cap is compared with ``>=`` instead of ``>``: ``maxDepth: 1`` forbids even the first child,
so every cap acts one level tighter than asked. Reading "maximum depth" as "depth must stay
below" gives this off-by-one.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import MisreadCapStart, reference_target
from subagent_tck.spec import check_depth

BREAKS = "DE-03"
#: ST-07 starts a child at the tool's cap (maxDepth 1, child depth 1) to see it offered the tool:
#: this runtime refuses that child.
ALSO_BREAKS = ("ST-07",)


class TightCapStart(MisreadCapStart):
    def misread_cap(self, cap: object) -> object:
        verdict = check_depth(cap)
        if verdict.value is None or verdict.value == 0:
            return cap
        return verdict.value - 1  # the bug: child >= cap is refused


def provider() -> Any:
    return reference_target("cap-refuses-equal", child_start_class=TightCapStart)
