"""A deny-only filter freezes the tools it admits when it is installed (breaks TF-09).

The restriction is turned into an allow list of the globals registered at that moment, so a
global tool registered later stays hidden although the deny list never named it. Snapshotting
"what this agent may see" at creation is the tempting shortcut the seed rejects.

ALSO_BREAKS FR-05: a child composed with a deny-only filter no longer follows the live registry
in its later requests, which FR-05 requires in the terms of TF-09..TF-11.
ALSO_BREAKS FR-04: a child resumed with its deny-only filter restored is not offered a global
registered after the resume (the restored filter must be live, docs/rules.md#FR-04: the cold
resume check's partition since the checks declare them).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import Restriction

BREAKS = "TF-09"
ALSO_BREAKS = ("FR-05", "FR-04")


class FrozenDenyScope(Scope):
    def install(self, restriction: Restriction) -> str:
        if restriction.allow is None and restriction.deny is not None:  # the bug: a snapshot
            admitted = [n for n in self.registry.names() if n not in restriction.deny]
            restriction = Restriction.of(allow=admitted)
        return super().install(restriction)


def provider() -> Any:
    return reference_target("deny-freezes-admitted", scope_class=FrozenDenyScope)
