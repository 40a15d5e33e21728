"""A preset's tool filter is dropped silently for a provider without ``toolFilter``
(breaks CA-01).

Presets are shared by every provider, so this runtime treats a preset's tool filter as
"best effort": started on a provider that cannot enforce it, the child simply sees every global
tool, while the same filter in a request is refused as it should be. The composition looks
configured and nothing enforces it. Persona, output schema and maxDepth are still gated.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ABSENT, Capability

BREAKS = "CA-01"


class DroppingStart(ChildStart):
    def gate_capabilities(self) -> None:
        from_preset = "toolFilter" not in self.request
        if from_preset and not self.provider.supports(Capability.TOOL_FILTER):
            self.asked["toolFilter"] = ABSENT  # the bug: a silent downgrade
        super().gate_capabilities()


def provider() -> Any:
    return reference_target("tool-filter-silently-dropped", child_start_class=DroppingStart)
