"""A preset's model and spawn policy reach a provider that does not advertise them (breaks
CA-01).

The capability gate checks what the start request asks for, but a preset's ``model`` and
``spawnPolicy`` are applied without asking: a provider without ``modelSelection`` runs the
child on the preset's model, one without ``spawnPolicy`` gives it the preset's policy. Adding
new preset fields after the gate was written does this (docs/rules.md#CA-01: from the request,
a preset or a descriptor).
"""

from __future__ import annotations

from typing import Any

from examples.providers.fewer_capabilities import providers
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ChildStart, Host
from subagent_tck.reference.delegation import unsupported
from subagent_tck.spec import ABSENT, FIELD_CAPABILITY

BREAKS = "CA-01"
#: An invalid value of a preset's new control is judged by its value, not refused for the
#: capability first (CA-03, a SHOULD).
ALSO_BREAKS = ("CA-03",)
NEW = ("spawnPolicy", "model")


class PresetBypass(ChildStart):
    def gate_capabilities(self) -> None:
        for key, value in self.asked.items():
            capability = FIELD_CAPABILITY[key]
            if value is ABSENT or self.provider.supports(capability):
                continue
            if key in NEW and key not in self.request:
                continue  # the bug: a preset's new controls are not gated
            raise unsupported(self.provider, capability, key)


class PresetBypassHost(Host):
    child_start_class = PresetBypass


def provider() -> Any:
    return ReferenceTarget(providers=providers, host_class=PresetBypassHost,
                           name="preset-model-ungated")
