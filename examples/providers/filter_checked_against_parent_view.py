"""A child's tool filter is validated against its parent's view (breaks TF-08).

TF-08 validates a filter against the global restrictable set: the names of the global tools
registered now. This runtime validates it against what the *parent* can see, as if a child had
to be a subset of its parent (a non-escalation rule that the design explicitly disclaims). A
parent's scope-local tool or the reserved ``run_code`` of a ``ptc`` parent then passes as a
filter name, and a global the parent's own restriction hides is refused. The other TF-08
checks start children from an unrestricted parent without locals, where the two sets coincide
(it was SUBTLE); the check ``tool-filter-beyond-the-parent-view`` restricts the parent, gives it
locals and ``ptc`` mode first, and so does the fuzzer.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart
from subagent_tck.spec import ABSENT, ErrorCode, TckError, validate_restriction

BREAKS = "TF-08"


class ParentViewStart(ChildStart):
    def install_tool_filter(self, agent: Agent, value: object) -> dict[str, Any] | None:
        if value is ABSENT:
            return None
        # the bug: the names the parent sees instead of the global restrictable set
        visible = [entry.name for entry in self.host.resolver.view(self.parent.scope)]
        verdict = validate_restriction(value, visible)
        if verdict.restriction is None:
            offending = {"offending": list(verdict.offending)}
            raise TckError(ErrorCode.INVALID_TOOL_FILTER, verdict.reason, offending)
        agent.scope.install(verdict.restriction)
        assert isinstance(value, dict)
        return {k: list(value[k]) for k in ("allow", "deny") if value.get(k) is not None}


def provider() -> Any:
    return reference_target("filter-checked-against-parent-view", child_start_class=ParentViewStart)
