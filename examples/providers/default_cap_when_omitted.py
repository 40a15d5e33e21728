"""A direct start without ``maxDepth`` is capped at 3 (breaks DE-10).

An omitted cap is meant to leave depth unbounded for direct callers; this runtime applies a
default of 3 (the model-facing tool's old default in DSH 0.1.x), so a child four levels deep is
refused with DEPTH_EXCEEDED although nobody asked for a cap. Sharing one default between the
model-facing tool and the direct API does this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ChildStart, Host
from subagent_tck.spec import ABSENT

BREAKS = "DE-10"
DEFAULT_CAP = 3


class DefaultCapStart(ChildStart):
    def decide_depth(self) -> None:
        if self.asked["maxDepth"] is not ABSENT:
            super().decide_depth()
            return
        self.asked["maxDepth"] = DEFAULT_CAP  # the bug: an omitted cap gets a default
        try:
            super().decide_depth()
        finally:
            self.asked["maxDepth"] = ABSENT


class DefaultCapHost(Host):
    child_start_class = DefaultCapStart


def provider() -> Any:
    return ReferenceTarget(host_class=DefaultCapHost, name="default-cap-when-omitted")
