"""Providers advertise ``outputSchema`` but never give the child ``structured_output``
(breaks CA-04).

The schema is validated and recorded in the descriptor, yet the child is never offered the
``structured_output`` tool, so it cannot return a structured result: the capability is
advertised and silently not honoured. A provider that copied the capability list of another
backend does this.

ALSO_BREAKS EN-01, FR-01, FR-02: the preset's output schema is part of the composition those
rules check (EN-01: the child gets the preset's output schema; FR-01: its first request offers
``structured_output``; FR-02: its view at publication is already complete).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart, check_output_schema
from subagent_tck.spec import ABSENT

BREAKS = "CA-04"
ALSO_BREAKS = ("EN-01", "FR-01", "FR-02")


class NoSchemaStart(ChildStart):
    def install_output_schema(self, agent: Agent, value: object) -> dict[str, Any] | None:
        if value is ABSENT:
            return None
        return check_output_schema(value)  # the bug: structured_output is never installed


def provider() -> Any:
    return reference_target("ignores-output-schema", child_start_class=NoSchemaStart)
