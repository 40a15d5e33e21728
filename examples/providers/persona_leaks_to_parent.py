"""A child persona that is also registered in the parent's scope (breaks PE-01).

The child's own prompt is right, but the start registers the persona section on the calling
agent's scope as well, so the parent (and every later request of it) carries the child's role
instead of the deployment persona. A runtime that registers the section through the context of
the caller, as well as the child's, behaves like this. ALSO_BREAKS FR-03: the section is
registered even when a later setup step fails, so a failed start leaves the parent changed.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart, PromptSection
from subagent_tck.spec import PERSONA_SECTION

BREAKS = "PE-01"
ALSO_BREAKS = ("FR-03",)


class LeakyPersona(ChildStart):
    def install_persona(self, agent: Agent, value: object) -> str | None:
        persona = super().install_persona(agent, value)
        if persona is not None:  # the bug: the parent's scope gets the section too
            self.parent.scope.add_section(PromptSection(PERSONA_SECTION, persona))
        return persona


def provider() -> Any:
    return reference_target("persona-leaks-to-parent", child_start_class=LeakyPersona)
