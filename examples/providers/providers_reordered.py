"""A conforming target whose providers come in another order, under other names (BREAKS None).

The target lists ``remote`` (no controls, an out-of-process agent) first, then ``clone`` (a
fork: it inherits the parent's context) and ``worker`` (a fresh child) last. Nothing in the
rules ties a provider to a position or a name: a certifier that judges only the first provider,
or assumes ``spawn``/``fork``/``acp``, gives a false failure or certifies too little here.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import AcpProvider, InProcessProvider, Provider
from subagent_tck.reference.provider import CONTROLS

BREAKS = None


def providers() -> list[Provider]:
    return [
        AcpProvider("remote"),
        InProcessProvider("clone", CONTROLS, inherits_parent_context=True),
        InProcessProvider("worker", CONTROLS, inherits_parent_context=False),
    ]


def provider() -> Any:
    return ReferenceTarget(providers=providers, name="providers-reordered")
