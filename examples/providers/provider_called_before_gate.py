"""An unsupported control from a preset is refused only after the provider's run started
(breaks CA-02).

The runtime checks the controls of the request itself up front, but hands a preset to the
provider, which resolves it once its run is under way: the provider notices a control it cannot
enforce and stops the run, so ``run.started`` and ``run.stopped`` events are logged although the
start fails with UNSUPPORTED_CAPABILITY. Letting each backend validate the presets it is given
does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import FIELD_CAPABILITY, ErrorCode, TckError

BREAKS = "CA-02"
FIELDS = {capability.value: field for field, capability in FIELD_CAPABILITY.items()}


class LateGateStart(ChildStart):
    def gate_capabilities(self) -> None:
        try:
            super().gate_capabilities()
        except TckError as exc:
            field = FIELDS.get(str(exc.details.get("capability")))
            from_preset = field is not None and field not in self.request
            if exc.code is ErrorCode.UNSUPPORTED_CAPABILITY and from_preset:  # the run had begun
                data = {"provider": self.provider.name}
                self.host.events.emit("run.started", data=data)
                self.host.events.emit("run.stopped", data={**data, "stopReason": "error"})
            raise


def provider() -> Any:
    return reference_target("provider-called-before-gate", child_start_class=LateGateStart)
