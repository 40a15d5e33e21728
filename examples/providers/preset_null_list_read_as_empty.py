"""A preset's filter list given as null is read as an empty list (breaks TF-07).

docs/rules.md#TF-07 decides that a list given as ``null`` counts as absent, so a preset whose
filter is ``{allow: null, deny: ["write"]}`` composes the deny-only filter ``{deny: ["write"]}``.
This runtime compiles its presets when a start selects one and turns a null list into ``[]``
(``new Set(null)`` in JavaScript does it), so that child sees no global at all. A filter
installed on a scope, or given in a start request, is read right: the checks that put a null
beside a real list installed it on a scope, and certified this target; a child composed from
such a preset shows it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart

BREAKS = "TF-07"


class PresetNullAsEmpty(ChildStart):
    def select_preset(self) -> None:
        super().select_preset()
        raw = self.preset.tool_filter
        if isinstance(raw, Mapping) and any(raw.get(k) is not None for k in ("allow", "deny")):
            compiled = {k: [] if v is None else v for k, v in raw.items()}  # the bug
            self.preset = dataclasses.replace(self.preset, tool_filter=compiled)


def provider() -> Any:
    return reference_target("preset-null-list-read-as-empty", child_start_class=PresetNullAsEmpty)
