"""A conforming target whose in-process providers advertise only ``depthLimit`` (BREAKS None).

``spawn`` and ``fork`` enforce a depth cap and nothing else, as a runtime that bounds recursion
but composes every child the same way would; ``acp`` advertises nothing. Persona, tool filter
and output schema are refused with ``UNSUPPORTED_CAPABILITY`` from every place they can come
from (request, preset, descriptor), before anything is created; the depth rules apply in full.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import AcpProvider, InProcessProvider, Provider
from subagent_tck.spec import Capability

BREAKS = None


def providers() -> list[Provider]:
    return [
        InProcessProvider("spawn", [Capability.DEPTH_LIMIT]),
        InProcessProvider("fork", [Capability.DEPTH_LIMIT], inherits_parent_context=True),
        AcpProvider("acp"),
    ]


def provider() -> Any:
    return ReferenceTarget(providers=providers, name="depth-limit-only")
