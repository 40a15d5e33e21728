"""A resolver that finds a tool by the identity of its name, not by its value (breaks TF-12).

``entry.name is name`` instead of ``==``: a Python runtime whose tests register and call a tool
with the same literal passes them (CPython shares the literal), but a name that arrives from a
model's tool call (decoded JSON, a new string) finds nothing, so execution no longer follows the
view the schemas show: a visible tool answers UNKNOWN_TOOL. Over a wire every name is a new
string; in-process the kit hands the target equal copies of its names for the same reason.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ResolvedTool, Resolver, Scope

BREAKS = "TF-12"
#: Every execution by name goes through the lookup: a tool a model calls (TF-05's shadowing
#: local), the ``subagent`` tool the model calls to delegate (ST-02, ST-04, ST-06, ST-07) all
#: answer UNKNOWN_TOOL although the schemas show them.
ALSO_BREAKS = ("TF-05", "ST-02", "ST-04", "ST-06", "ST-07")


class IdentityResolver(Resolver):
    def lookup(self, scope: Scope | None, name: str) -> ResolvedTool | None:
        for entry in self.view(scope):
            if entry.name is name:
                return entry
        return None


def provider() -> ReferenceTarget:
    return reference_target("tool-lookup-by-identity", resolver_class=IdentityResolver)
