"""A tool filter's keys other than ``allow`` and ``deny`` are dropped, not refused (breaks
TF-07).

``{allow: ["read"], exclude: ["write"]}`` is installed as ``{allow: ["read"]}``, and
``{deny: ["write"], Allow: ["read"]}`` as ``{deny: ["write"]}``: the misspelled or invented key
is silently ignored, so the filter looks effective while part of it is not. TF-07 exists to
catch that mistake; the oracle's Decision refuses a key other than ``allow``/``deny`` with
``INVALID_TOOL_FILTER`` (docs/rules.md#TF-07). A filter of unknown keys alone is still refused
here (what is left is ``{}``, the no-op filter). A reader that picks the keys it knows from a
JSON object behaves like this; the checks and the campaign never sent such a key, and
certified it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope

BREAKS = "TF-07"


class KnownKeysScope(Scope):
    def restrict(self, value: object) -> str:
        if isinstance(value, Mapping):
            value = {k: v for k, v in value.items() if k in ("allow", "deny")}  # the bug
        return super().restrict(value)


def provider() -> Any:
    return reference_target("filter-unknown-keys-ignored", scope_class=KnownKeysScope)
