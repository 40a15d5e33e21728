"""In the request-controls edition, a preset's persona is ignored (breaks PE-02).

A child started with a preset and no persona of its own should carry the preset's persona (the
composed persona); this runtime takes the persona only from the start request in the
request-controls edition, so the child falls back to the deployment persona. The preset's tool
filter and output schema still apply, and the capability gate still sees the preset's persona.
A runtime that grew request-level persona first and added presets later, wiring them only for
filters, behaves like this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.builtin import ReferenceTarget
from subagent_tck.conformance.protocol import TargetInfo
from subagent_tck.reference import Agent, ChildStart, Host
from subagent_tck.spec import Edition

BREAKS = "PE-02"
#: a preset whose persona is explicitly empty does not shadow either: PE-03 shows too (the
#: fuzz campaign of default certify meets it with such a preset)
ALSO_BREAKS = ("PE-03",)


class RequestOnlyPersona(ChildStart):
    def install_persona(self, agent: Agent, value: object) -> str | None:
        if self.host.edition is Edition.REQUEST_CONTROLS and self.request.get("persona") is None:
            return None  # the bug: only the request's persona is installed
        return super().install_persona(agent, value)


class RequestOnlyPersonaHost(Host):
    child_start_class = RequestOnlyPersona


class RequestControlsTarget(ReferenceTarget):
    """Advertises the request-controls edition only, where this bug lives."""

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={"editions": [Edition.REQUEST_CONTROLS]})


def provider() -> Any:
    return RequestControlsTarget(
        host_class=RequestOnlyPersonaHost, name="request-edition-ignores-preset-persona"
    )
