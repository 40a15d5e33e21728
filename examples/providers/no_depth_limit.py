"""A conforming provider set without ``depthLimit`` (BREAKS None).

``spawn`` and ``fork`` advertise persona, toolFilter and outputSchema but not ``depthLimit``,
as a backend whose deployment owns its recursion budget would; ``acp`` advertises nothing. A
start with ``maxDepth`` is refused with ``UNSUPPORTED_CAPABILITY`` before anything is created,
and starts without it are unbounded, while the depth domain (stored, runtime, overflow) is still
enforced. The cap rules (DE-03, DE-04, DE-05, DE-09) are not applicable to such providers.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import AcpProvider, InProcessProvider, Provider
from subagent_tck.spec import Capability

BREAKS = None

CONTROLS = [Capability.PERSONA, Capability.TOOL_FILTER, Capability.OUTPUT_SCHEMA]


def providers() -> list[Provider]:
    return [
        InProcessProvider("spawn", CONTROLS),
        InProcessProvider("fork", CONTROLS, inherits_parent_context=True),
        AcpProvider("acp"),
    ]


def provider() -> Any:
    return ReferenceTarget(providers=providers, name="no-depth-limit")
