"""A direct start without ``maxDepth`` is capped at 3 (breaks DE-10).

An omitted cap is meant to leave depth unbounded for direct callers; this runtime applies a
default of 3 (the model-facing tool's old default in DSH 0.1.x), so a child four levels deep is
refused with DEPTH_EXCEEDED although nobody asked for a cap. Sharing one default between the
model-facing tool and the direct API does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import MisreadCapStart, reference_target
from subagent_tck.spec import ABSENT

BREAKS = "DE-10"
DEFAULT_CAP = 3


class DefaultCapStart(MisreadCapStart):
    def misread_cap(self, cap: object) -> object:
        return DEFAULT_CAP if cap is ABSENT else cap  # the bug: an omitted cap gets a default


def provider() -> Any:
    return reference_target("default-cap-when-omitted", child_start_class=DefaultCapStart)
