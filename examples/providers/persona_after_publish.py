"""A child whose persona is registered after the child is published (breaks FR-02).

The persona is validated during setup, so a bad template still fails the start before anything
is visible, but the section itself is registered by a post-creation hook that runs once the
child has been announced. Observers of ``agent.published`` therefore see a child whose prompt
still carries the deployment persona; the persona is in place before the first model request,
so the wire is right and only the publication is early. A runtime that attaches role
instructions from an "agent created" callback behaves like this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart, Descriptor, PromptSection
from subagent_tck.reference.prompt import render_strict
from subagent_tck.spec import ABSENT, PERSONA_SECTION

BREAKS = "FR-02"


class PersonaAfterPublish(ChildStart):
    late_persona: str | None = None

    def install_persona(self, agent: Agent, value: object) -> str | None:
        if value is ABSENT or not isinstance(value, str):
            return super().install_persona(agent, value)
        render_strict(value, self.host.variables, "persona")  # still refused before publication
        self.late_persona = value
        return value

    def publish(self, child: Agent, descriptor: Descriptor) -> None:
        super().publish(child, descriptor)
        if self.late_persona is not None:  # the bug: registered after the child is visible
            child.scope.add_section(PromptSection(PERSONA_SECTION, self.late_persona))


def provider() -> Any:
    return reference_target("persona-after-publish", child_start_class=PersonaAfterPublish)
