"""A deny list only works for the names the kit used to draw (breaks TF-01).

The resolver drops every deny entry whose name is not one of a fixed list of words (the
NATO-alphabet names ``alpha`` .. ``foxtrot``, ``lima`` .. ``november`` and the
``read``/``write``/``search`` trio the checks once drew all their names from): a denied
``get_weather``, ``mcp__github__create_issue`` or ``検索`` stays visible. A runtime that matches
deny entries against a table of tools it knows behaves like this. Before the checks generated
their names, this target was CERTIFIED at every seed; now the explicit awkward cases and the
drawn names catch it at any seed.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import MisreadRestrictionsResolver, reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import Restriction

BREAKS = "TF-01"
#: The same forgotten deny entries, seen where several restrictions meet (TF-02), where a deny
#: list meets tools registered later (TF-09) and where named tools are unregistered (TF-11).
#: Children composed with such a deny list carry the forgotten tool too: in their view and
#: first request (EN-01, FR-01), their published snapshot (FR-02), their resumed request (FR-04)
#: and later requests (FR-05).
ALSO_BREAKS = ("TF-02", "TF-09", "TF-11", "EN-01", "FR-01", "FR-02", "FR-04", "FR-05")

#: The only names whose deny entries this resolver honours.
FAMILIAR = frozenset({
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "lima", "mike", "november",
    "read", "write", "search", "web", "ghost", "probe", "zulu",
})


class ForgetfulResolver(MisreadRestrictionsResolver):
    def misread(self, scope: Scope, restriction: Restriction) -> Restriction:
        if restriction.deny is None:
            return restriction
        # the bug: a deny entry it does not recognise is ignored
        return Restriction(restriction.allow, frozenset(n for n in restriction.deny
                                                        if n in FAMILIAR))


def provider() -> Any:
    return reference_target("deny-skips-unfamiliar-names", resolver_class=ForgetfulResolver)
