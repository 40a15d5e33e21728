"""A tool filter may name the scope's own local tools (breaks TF-08).

Restrictions are validated against the names the scope can see (globals *and* its locals), so a
filter naming a scope-local-only tool is accepted although it can never affect it; an error for
a filter with several unknown names leaves the local ones out. A runtime that validates filter
names against the scope's view instead of the global restrictable set does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import ErrorCode, TckError, validate_restriction

BREAKS = "TF-08"


class LocalNamesScope(Scope):
    def restrict(self, value: object) -> str:
        known = [*self.registry.names(), *self.locals()]  # the bug: locals count as known
        verdict = validate_restriction(value, known)
        if verdict.restriction is None:
            offending = {"offending": list(verdict.offending)}
            raise TckError(ErrorCode.INVALID_TOOL_FILTER, verdict.reason, offending)
        return self.install(verdict.restriction)


def provider() -> Any:
    return reference_target("local-names-accepted", scope_class=LocalNamesScope)
