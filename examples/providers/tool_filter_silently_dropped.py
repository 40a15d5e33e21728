"""A preset's tool filter is dropped silently for a provider without ``toolFilter``
(breaks CA-01).

Presets are shared by every provider, so this runtime treats a preset's tool filter as
"best effort": started on a provider that cannot enforce it, the child simply sees every global
tool, while the same filter in a request is refused as it should be. The composition looks
configured and nothing enforces it. Persona, output schema and maxDepth are still gated.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ChildStart, Host
from subagent_tck.spec import ABSENT, Capability

BREAKS = "CA-01"


class DroppingStart(ChildStart):
    def gate_capabilities(self) -> None:
        from_preset = "toolFilter" not in self.request
        if from_preset and not self.provider.supports(Capability.TOOL_FILTER):
            self.asked["toolFilter"] = ABSENT  # the bug: a silent downgrade
        super().gate_capabilities()


class DroppingHost(Host):
    child_start_class = DroppingStart


def provider() -> Any:
    return ReferenceTarget(host_class=DroppingHost, name="tool-filter-silently-dropped")
