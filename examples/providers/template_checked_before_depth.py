"""The child's composition is validated before the depth check (breaks DE-04).

The runtime validates the whole composition up front (the persona must render, the tool
filter must name registered tools, the output schema must be an object schema) and decides the
depth afterwards. A start that is both too deep and composed with a value its setup would refuse
is then refused with that value's code (INVALID_TEMPLATE, INVALID_TOOL_FILTER,
INVALID_OUTPUT_SCHEMA), as if the child had been owned and set up before its depth was known.
A depth rejection comes before the child is owned (docs/rules.md#de-04) and setup faults after
it (docs/rules.md#fr-03), so the refusal must be the depth's: DEPTH_EXCEEDED, or INVALID_DEPTH
for a cap or a parent's depth outside the domain.

Before the oracle expected the code a rule fixes, any code of an applicable fault passed: the
old campaign certified this target, and no fixed check started a child that was too deep with
a value its setup refuses.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ABSENT, ErrorCode, TckError, render_template, validate_restriction

BREAKS = "DE-04"


class CompositionFirstStart(ChildStart):
    def decide_depth(self) -> None:
        # the bug: the setup checks of the child run before the depth rejection
        persona, tool_filter = self.asked["persona"], self.asked["toolFilter"]
        schema = self.asked["outputSchema"]
        if isinstance(persona, str):
            rendered = render_template(persona, self.host.variables)
            if rendered.code is not None:
                raise TckError(rendered.code, rendered.reason)
        if tool_filter is not ABSENT:
            verdict = validate_restriction(tool_filter, self.host.registry.names())
            if verdict.code is not None:
                raise TckError(verdict.code, verdict.reason)
        if schema is not ABSENT and not (isinstance(schema, dict)
                                         and schema.get("type") == "object"):
            raise TckError(ErrorCode.INVALID_OUTPUT_SCHEMA, "an output schema is an object schema")
        super().decide_depth()


def provider() -> Any:
    return reference_target(
        "template-checked-before-depth", child_start_class=CompositionFirstStart)
