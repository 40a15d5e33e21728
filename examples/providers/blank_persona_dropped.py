"""A child persona of whitespace only is treated as no persona (breaks PE-01).

A child persona replaces the deployment persona in the child's prompt (docs/rules.md#PE-01),
whatever its text: ``"   "`` or ``"\\n\\t"`` is a persona like any other, sent as written. This
runtime tests ``persona.strip()`` (JavaScript's ``if (persona.trim())``), so a persona of
whitespace only installs nothing and the child carries the deployment persona. The empty persona
is still honoured (PE-03), so only a persona of whitespace only tells it apart; the checks drew
one only by chance and certified it. PE-05's shape "whitespace-only" sees the same child
(ALSO_BREAKS).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart
from subagent_tck.spec import ABSENT

BREAKS = "PE-01"
ALSO_BREAKS = ("PE-05",)


class BlankPersonaDropped(ChildStart):
    def install_persona(self, agent: Agent, value: object) -> str | None:
        if isinstance(value, str) and value and not value.strip():
            value = ABSENT  # the bug: a blank persona read as none
        return super().install_persona(agent, value)


def provider() -> Any:
    return reference_target("blank-persona-dropped", child_start_class=BlankPersonaDropped)
