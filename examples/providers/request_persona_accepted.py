"""Request-level persona and tool filter accepted in the preset-composition edition (breaks EN-02).

The runtime advertises the preset-composition edition but still honours ``persona`` and
``toolFilter`` carried by a new start request, composing the child from them: the edition's
single entry point (presets) is bypassed. A runtime upgraded from the request-controls era that
kept its old request parsing behaves like this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart

BREAKS = "EN-02"


class NoEditionCheck(ChildStart):
    def check_edition(self) -> None:
        """The bug: request controls are never refused."""


def provider() -> Any:
    return reference_target("request-persona-accepted", child_start_class=NoEditionCheck)
