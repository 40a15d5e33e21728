"""A conforming target whose providers advertise fewer controls (BREAKS None).

``spawn`` advertises only ``persona``, ``depthLimit`` and ``spawnPolicy``; ``fork`` only
``toolFilter``, ``outputSchema`` and ``modelSelection``; ``acp`` nothing. Each refuses every
control it does not advertise with ``UNSUPPORTED_CAPABILITY`` before anything is created, and
honours the ones it does. A certifier must certify such a target without a false failure: a
provider is judged only on what it advertises, and on refusing the rest cleanly.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import AcpProvider, InProcessProvider, Provider
from subagent_tck.spec import Capability

BREAKS = None


def providers() -> list[Provider]:
    return [
        InProcessProvider("spawn", [Capability.PERSONA, Capability.DEPTH_LIMIT,
                                    Capability.SPAWN_POLICY]),
        InProcessProvider(
            "fork",
            [Capability.TOOL_FILTER, Capability.OUTPUT_SCHEMA, Capability.MODEL_SELECTION],
            inherits_parent_context=True,
        ),
        AcpProvider("acp"),
    ]


def provider() -> Any:
    return ReferenceTarget(providers=providers, name="fewer-capabilities")
