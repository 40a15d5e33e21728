"""A child started without a persona of its own gets no persona at all (breaks PE-02).

The deployment persona should be the child's composed persona when the start asks for none;
this runtime registers an empty scoped persona section for such a child, so the deployment
persona never reaches it. A runtime that defaults a missing request persona to ``""`` instead of
leaving it absent behaves like this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart
from subagent_tck.spec import ABSENT

BREAKS = "PE-02"
#: The checks of the first and later requests (FR-01, FR-05), of publication (FR-02) and of the
#: inherited deployment persona's substitution (PE-05) and EN-03's filter-only child start
#: children without a persona too.
ALSO_BREAKS = ("PE-05", "FR-01", "FR-02", "FR-05", "EN-03")


class PersonaDefaultsToEmpty(ChildStart):
    def install_persona(self, agent: Agent, value: object) -> str | None:
        if value is ABSENT:
            super().install_persona(agent, "")  # the bug: omitted becomes an empty persona
            return None  # (the descriptor still records none)
        return super().install_persona(agent, value)


def provider() -> Any:
    return reference_target("omitted-persona-dropped", child_start_class=PersonaDefaultsToEmpty)
