"""A list given as null beside a real list is read as an empty list (breaks TF-07).

docs/rules.md#TF-07 decides that a list given as ``null`` counts as absent, so
``{allow: null, deny: []}`` is the deny-only restriction ``{deny: []}`` and hides nothing.
This target compiles the null to ``[]`` (DSH 0.1.x does it with ``new Set(null)``), so
``allow: null`` hides every global tool. The no-op filter (both lists null) is still refused,
so only a case that puts a null beside a real list tells it apart. The misreading is in the
scope's one restrict, so a child's composed filter reads its nulls the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope

BREAKS = "TF-07"


class NullAsEmptyScope(Scope):
    def restrict(self, value: object) -> str:
        if isinstance(value, Mapping) and any(value.get(k) is not None for k in ("allow", "deny")):
            value = {k: [] if v is None else v for k, v in value.items()}  # the bug
        return super().restrict(value)


def provider() -> Any:
    return reference_target("null-list-read-as-empty", scope_class=NullAsEmptyScope)
