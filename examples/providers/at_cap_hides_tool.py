"""A runtime that hides the ``subagent`` tool from a child created at the cap (breaks ST-07).

When a child is started at the depth cap, a deny restriction for every loaded ``subagent`` tool
is installed in its scope: a creation-time filter. It looks tidy (why offer a tool that must
fail?), but the cap is runtime state: the host setting can change later, and the model is left
without the tool and without the reason.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.agent import Agent
from subagent_tck.reference.delegation import ChildStart
from subagent_tck.reference.descriptor import Descriptor
from subagent_tck.reference.subagent_tool import COMPONENT

BREAKS = "ST-07"


class HidingStart(ChildStart):
    def setup_unpublished(self, child: Agent) -> Descriptor:
        descriptor = super().setup_unpublished(child)
        if self.child_depth + 1 > self.host.host_depth:
            names = [n for n in self.host.component_state.get(COMPONENT, {})
                     if n in self.host.registry]
            if names:
                child.scope.restrict({"deny": names})
        return descriptor


def provider() -> ReferenceTarget:
    return reference_target("at-cap-hides-tool", child_start_class=HidingStart)
