"""A restriction with neither ``allow`` nor ``deny`` is installed as a no-op (breaks TF-07).

``{}`` and ``{allow: null, deny: null}`` are accepted by the public restrict API and installed
as a filter that admits everything, so a misconfiguration looks effective. DSH 0.1.x accepts
``{allow: null, deny: null}`` this way; here the driver's restrict path does it (child
composition still validates).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.spec import Restriction

BREAKS = "TF-07"


class NoOpFilterHost(Host):
    def restrict(self, agent: str, value: object) -> str:
        if isinstance(value, Mapping) and value.get("allow") is None and value.get("deny") is None:
            return self.agent(agent).scope.install(Restriction())  # the bug: a silent no-op
        return super().restrict(agent, value)


def provider() -> Any:
    return ReferenceTarget(host_class=NoOpFilterHost, name="no-op-filter-accepted")
