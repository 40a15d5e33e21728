"""An allow list is compared case-insensitively (breaks TF-01).

``{allow: ["read"]}`` also admits a global tool named ``Read``. Tool names are case-sensitive
identifiers, so the filter admits a tool it never named. A runtime that normalises names for
matching ("users type Read or read") does this. The checks once used distinct lower-case names
only and missed it (it was SUBTLE: only the fuzzer's ``read``/``Read`` found it); their names
are generated now, with case twins among the explicit cases and often among drawn names, so
certify finds it at every seed. The same folded allow list shows where an empty deny list
stands beside it (TF-03) and where a case twin is registered later (TF-10).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import MisreadRestrictionsResolver, reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import Restriction

BREAKS = "TF-01"
#: The same case-folded allow list wherever a view is composed: the empty and one-entry lists of
#: TF-03, tools registered later (TF-10), and every child whose view, first request, published
#: snapshot, resumed request or later requests carry that composition (EN-01, FR-01, FR-02,
#: FR-04, FR-05): each shows the extra tool that differs from an allowed one only by case.
ALSO_BREAKS = ("TF-03", "TF-10", "EN-01", "FR-01", "FR-02", "FR-04", "FR-05")


class CaseFoldingResolver(MisreadRestrictionsResolver):
    def misread(self, scope: Scope, restriction: Restriction) -> Restriction:
        if restriction.allow is None:
            return restriction
        # the bug: "read" in allow admits "Read" too
        folded = {a.casefold() for a in restriction.allow}
        names = scope.registry.names()
        return Restriction(restriction.allow | {n for n in names if n.casefold() in folded},
                           restriction.deny)


def provider() -> Any:
    return reference_target("case-insensitive-allow", resolver_class=CaseFoldingResolver)
