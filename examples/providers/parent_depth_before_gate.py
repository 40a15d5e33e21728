"""The parent's durable depth is validated before the capability gate (breaks CA-01).

A start first loads its parent's session header and refuses a stored ``delegationDepth``
outside the domain, or a parent already at 2^53-1, with INVALID_DEPTH, and only then asks
whether the provider advertises the controls the start asks for. A start from a parent with a
sound header is gated correctly, which is every start the fixed checks make; but a start that
asks a provider for a control it lacks must fail with UNSUPPORTED_CAPABILITY whatever else is
wrong with it (docs/rules.md#ca-01: the stored-depth rules fix no code of their own), and this
one reports the parent's depth instead. Reading "the parent is broken" as more fundamental than
"the request asks too much" is a natural order to write, and the one the rules exclude.

Before the oracle expected the code a rule fixes, any code of an applicable fault passed: the
old campaign certified this target, and no fixed check asked for an unadvertised control from
a parent at 2^53-1 (the gating check does now).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ABSENT, TckError, decide_start_depth, read_json_number

BREAKS = "CA-01"


class ParentFirstStart(ChildStart):
    def gate_capabilities(self) -> None:
        header = self.host.store.header(self.parent.session)
        try:
            stored: object = read_json_number(header.depth_json)
        except ValueError:
            stored = float("nan")
        # the bug: the parent's own depth (no cap yet) is judged before the gate
        decision = decide_start_depth(stored, self.parent.runtime_depth, ABSENT)
        if decision.code is not None:
            raise TckError(decision.code, f"{decision.reason}; nothing was created")
        super().gate_capabilities()


def provider() -> Any:
    return reference_target("parent-depth-before-gate", child_start_class=ParentFirstStart)
