"""A preset's model wins over the start request's (breaks MO-01).

Every other control of a start request overrides its preset's value; the model alone is taken
from the preset first, so a request asking a reviewer preset of a large model to run on a small
one gets the large one (docs/rules.md#MO-01: the request's model wins).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart

BREAKS = "MO-01"


class PresetFirstStart(ChildStart):
    def compose(self) -> None:
        super().compose()
        if self.preset.model is not None:
            self.asked["model"] = self.preset.model  # the bug: the preset's model first


def provider() -> Any:
    return reference_target("preset-model-beats-request", child_start_class=PresetFirstStart)
