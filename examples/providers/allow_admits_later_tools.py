"""An allow list is stored as a deny list of the other tools registered then (breaks TF-10).

At installation the runtime denies every global the allow list does not name; a global tool
registered afterwards is named by neither list and slips through. Converting allow lists to
deny lists to keep one code path does this.

ALSO_BREAKS FR-05: a child composed with an allow list is offered a global registered during its
run, which FR-05 forbids in the terms of TF-09..TF-11.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import Restriction

BREAKS = "TF-10"
ALSO_BREAKS = ("FR-05",)


class AllowAsDenyScope(Scope):
    def install(self, restriction: Restriction) -> str:
        if restriction.allow is not None:  # the bug: deny the others known now
            others = [n for n in self.registry.names() if n not in restriction.allow]
            restriction = Restriction.of(deny=[*others, *(restriction.deny or ())])
        return super().install(restriction)


def provider() -> Any:
    return reference_target("allow-admits-later-tools", scope_class=AllowAsDenyScope)
