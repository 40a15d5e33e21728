"""A preset's persona and tool filter win over the request's own (breaks EN-03).

In the request-controls edition a start request's ``persona`` and ``toolFilter`` compose the
child; when the request also names a preset, this runtime lets the preset's values win, so the
request's controls are silently dropped. Merging the request into the preset in the wrong order
(``{**request, **preset}``) produces exactly this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.builtin import ReferenceTarget
from subagent_tck.conformance.protocol import TargetInfo
from subagent_tck.reference import ChildStart, Host
from subagent_tck.spec import Edition

BREAKS = "EN-03"


class PresetFirst(ChildStart):
    def compose(self) -> None:
        super().compose()
        preset = self.preset
        for key, value in (("persona", preset.persona), ("toolFilter", preset.tool_filter)):
            if value is not None:  # the bug: the preset's value replaces the request's
                self.asked[key] = value


class PresetFirstHost(Host):
    child_start_class = PresetFirst


class RequestControlsTarget(ReferenceTarget):
    """Advertises the request-controls edition only, where this bug lives."""

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={"editions": [Edition.REQUEST_CONTROLS]})


def provider() -> Any:
    return RequestControlsTarget(host_class=PresetFirstHost, name="preset-overrides-request")
