"""Several restrictions on one scope are joined, not intersected (breaks TF-02).

A global tool is visible when *any* installed restriction admits it, so ``{allow: [a, b]}``
then ``{deny: [b]}`` offers every tool the deny list does not name. A runtime that treats each
restriction as a grant ("this plugin may see these tools") rather than a filter does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import Restriction

BREAKS = "TF-02"


class UnionScope(Scope):
    def restrictions(self) -> tuple[Restriction, ...]:
        rules = super().restrictions()
        if len(rules) < 2:
            return rules
        admitted = [n for n in self.registry.names() if any(r.admits(n) for r in rules)]
        return (Restriction.of(allow=admitted),)  # the bug: a union of what each admits


def provider() -> Any:
    return reference_target("union-of-restrictions", scope_class=UnionScope)
