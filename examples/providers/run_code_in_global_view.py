"""The registry's own view lists ``run_code`` once an agent exists in a non-native deployment
(breaks TF-11).

The scope-less view is the global registry (docs/rules.md#TF-11: unregistering and re-reading
it shows exactly the registered globals); ``run_code`` belongs to a scope's presentation
(docs/rules.md#TF-06), never to it. This runtime builds the scope-less view through the same
path as a scope's and appends the transport whenever the deployment's default presentation mode
is not native and some agent exists: in a ``both`` or ``ptc`` deployment the global view gains
``run_code``. A real runtime did this (docs/dsh.md, TF-11); the check's native-mode cases never
saw it, so TF-11's check now draws the deployment's mode.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, ResolvedTool
from subagent_tck.spec import RUN_CODE, Origin, PresentationMode

BREAKS = "TF-11"


class GlobalViewWithTransportHost(Host):
    def view(self, agent: str | None = None) -> tuple[ResolvedTool, ...]:
        entries = super().view(agent)
        agents = self.agents()
        if agent is None and self.default_mode is not PresentationMode.NATIVE and len(agents) > 1:
            return (*entries, ResolvedTool(RUN_CODE, Origin.RESERVED,
                                           self.resolver._run_code_tool(agents[0].scope)))
        return entries


def provider() -> Any:
    return ReferenceTarget(host_class=GlobalViewWithTransportHost,
                           name="run-code-in-global-view")
