"""A preset that is not found falls back to the default preset (breaks EN-01).

Preset names are case-folded on lookup but stored as the deployment gave them, so a preset whose
name has a capital letter is never found; instead of refusing, the runtime silently composes the
child with its default preset (the first one defined). A child started with preset ``Q`` thus
gets ``P``'s persona, tool filter and output schema. Silent fallbacks to a default
configuration are a common way to make a lookup bug invisible.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart

BREAKS = "EN-01"


class FallbackPreset(ChildStart):
    def select_preset(self) -> None:
        name = self.request.get("preset")
        presets = self.host.presets
        if isinstance(name, str) and name != name.lower() and presets:
            # The bug: the folded name misses, and the first preset stands in for it.
            self.preset_name = name
            self.preset = presets.get(name.lower(), next(iter(presets.values())))
            return
        super().select_preset()


def provider() -> Any:
    return reference_target("preset-lookup-falls-back", child_start_class=FallbackPreset)
