"""In the request-controls edition, a preset's persona is ignored (breaks PE-02).

A child started with a preset and no persona of its own should carry the preset's persona (the
composed persona); this runtime takes the persona only from the start request in the
request-controls edition, so the child falls back to the deployment persona. The preset's tool
filter and output schema still apply. A runtime that grew request-level persona first and added
presets later, wiring them only for filters, behaves like this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.builtin import ReferenceTarget
from subagent_tck.reference import ChildStart, Host
from subagent_tck.spec import ABSENT, Edition

BREAKS = "PE-02"


class RequestOnlyPersona(ChildStart):
    def compose(self) -> None:
        super().compose()
        if self.host.edition is Edition.REQUEST_CONTROLS and self.request.get("persona") is None:
            self.asked["persona"] = ABSENT  # the bug: the preset's persona is dropped


class RequestOnlyPersonaHost(Host):
    child_start_class = RequestOnlyPersona


def provider() -> Any:
    return ReferenceTarget(
        host_class=RequestOnlyPersonaHost, name="request-edition-ignores-preset-persona"
    )
