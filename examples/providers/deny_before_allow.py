"""Deny applied first, then the allow list re-admits what it names (breaks TF-01).

With both lists on one restriction, a name that is allowed and denied stays visible: the allow
list wins, so ``{allow: [a, b], deny: [b]}`` offers ``a`` and ``b`` instead of ``a``. This is
the "Order Deny,Allow" reading of access lists in web servers, carried over to tool filters.
The bug sits in the host's public ``restrict`` API (what plugins and the driver call), which
normalizes a valid filter into deny-minus-allow; child composition installs its filters through
the scope directly and is unaffected.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.spec import Restriction, validate_restriction

BREAKS = "TF-01"


class DenyBeforeAllowHost(Host):
    def restrict(self, agent: str, value: object) -> str:
        scope = self.agent(agent).scope
        restriction = validate_restriction(value, self.registry.names()).restriction
        if restriction is None or restriction.allow is None or restriction.deny is None:
            return super().restrict(agent, value)
        # the bug: allowed names are never denied
        return scope.install(Restriction(restriction.allow, restriction.deny - restriction.allow))


def provider() -> Any:
    return ReferenceTarget(host_class=DenyBeforeAllowHost, name="deny-before-allow")
