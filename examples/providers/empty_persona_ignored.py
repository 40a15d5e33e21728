"""An explicit empty persona is treated as no persona (breaks PE-03).

``persona: ""`` should shadow the deployment persona with an empty section; this runtime tests
the value for truthiness, so the empty string installs nothing and the child carries the
deployment persona. The capability gate still sees the request (a provider without ``persona``
refuses it). The JavaScript ``if (persona)`` idiom produces exactly this bug.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart

BREAKS = "PE-03"


class TruthyPersona(ChildStart):
    def install_persona(self, agent: Agent, value: object) -> str | None:
        if value == "":  # the bug: an empty persona is taken for "no persona"
            return None
        return super().install_persona(agent, value)


def provider() -> Any:
    return reference_target("empty-persona-ignored", child_start_class=TruthyPersona)
