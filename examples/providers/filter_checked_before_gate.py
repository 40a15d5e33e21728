"""The child's tool filter is validated before the capability gate (breaks CA-01).

The runtime checks that the composed ``toolFilter`` names only registered tools (and is no
no-op) as soon as it has composed the start, and gates the controls afterwards. A valid filter
asked of a provider without ``toolFilter`` is still refused with UNSUPPORTED_CAPABILITY, which
is every case the unsupported-control check makes; an invalid one is refused for its value,
INVALID_TOOL_FILTER, although the provider could never have applied it. The capability failure
comes before the provider is called and before any child exists (docs/rules.md#ca-02), and
setup faults after that (docs/rules.md#fr-03): the refusal must be UNSUPPORTED_CAPABILITY
(docs/rules.md#ca-01). maxDepth's own value check is the one value check whose order is only a
SHOULD (docs/rules.md#ca-03).

ALSO_BREAKS DE-04: the same early check comes before the depth check too, so a start at the
cap with a filter naming an unknown tool is refused INVALID_TOOL_FILTER where the depth refusal
comes first (gate, spawn policy, depth, then setup: docs/rules.md#de-04); the campaign draws it.

Before the oracle expected the code a rule fixes, this passed every MUST check: only the
capability-first check reported it, as CA-03, a SHOULD, so the target was CERTIFIED.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ABSENT, TckError, validate_restriction

BREAKS = "CA-01"
ALSO_BREAKS = ("DE-04",)


class FilterFirstStart(ChildStart):
    def gate_capabilities(self) -> None:
        value = self.asked["toolFilter"]
        if value is not ABSENT:  # the bug: a setup value check before the gate
            verdict = validate_restriction(value, self.host.registry.names())
            if verdict.code is not None:
                raise TckError(verdict.code, f"toolFilter: {verdict.reason}")
        super().gate_capabilities()


def provider() -> Any:
    return reference_target("filter-checked-before-gate", child_start_class=FilterFirstStart)
