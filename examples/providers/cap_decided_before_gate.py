"""The depth cap is decided before the capability gate (breaks CA-01).

The runtime decides the child's depth, cap included, before it asks whether the provider
advertises ``depthLimit`` at all. A cap the child's depth stays under is then refused correctly
with UNSUPPORTED_CAPABILITY, but ``maxDepth: 0`` to a provider without ``depthLimit`` is refused
with DEPTH_EXCEEDED: the unadvertised control was applied (docs/rules.md#ca-01). Moving a
"cheap" check up the pipeline does this; only a cap that the start would exceed shows it.

ALSO_BREAKS CA-03 (a SHOULD): an invalid cap such as ``maxDepth: -1`` is refused for its value
(INVALID_DEPTH) before the gate could report UNSUPPORTED_CAPABILITY.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart

BREAKS = "CA-01"
ALSO_BREAKS = ("CA-03",)


class CapFirstStart(ChildStart):
    def gate_capabilities(self) -> None:
        self.decide_depth()  # the cap, supported or not, decides first
        super().gate_capabilities()


def provider() -> Any:
    return reference_target("cap-decided-before-gate", child_start_class=CapFirstStart)
