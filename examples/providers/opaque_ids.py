"""A conforming target with another id scheme for agents and sessions (BREAKS None).

Agents are ``urn:agent:`` plus twelve hex digits, sessions ``sess/`` plus a zero-padded number
counting down from 9999: no ``agent-1``/``session-1`` shape, ids that sort in no particular
order, and characters (``:``, ``/``) a check must not read anything into. Ids are opaque to the
rules: a certifier that parses them, compares their order or assumes a prefix gives a false
failure here.
"""

from __future__ import annotations

import hashlib
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host

BREAKS = None


class OpaqueIdHost(Host):
    """The reference host; only the ids it hands out differ."""

    def new_agent(self, **kwargs: Any) -> Any:
        agent = super().new_agent(**kwargs)
        number = int(agent.id.rsplit("-", 1)[1])
        digest = hashlib.sha256(f"agent {number}".encode()).hexdigest()[:12]
        agent.id = f"urn:agent:{digest}"
        agent.scope.id = agent.id
        if kwargs.get("session") is None:
            count = int(agent.session.rsplit("-", 1)[1])
            agent.session = f"sess/{10_000 - count:04d}"
        return agent


def provider() -> Any:
    return ReferenceTarget(host_class=OpaqueIdHost, name="opaque-ids")
