"""A start whose setup fails after its persona was installed leaves the persona on the parent
(breaks FR-03).

This runtime composes a child's prompt on a stack it shares with the parent: the persona step
pushes the child's persona section onto the parent's scope, and publishing the child pops it
off into the child's own. A setup that fails in a later step (an output schema that is not an
object) never publishes, so nothing pops: the parent is left speaking with its child's persona.
A failure in the persona step itself, or a start without a persona, leaves nothing; FR-03 asks
that a failed start leave the parent unchanged whichever step failed. The fixed checks gave one
control per case and never saw it; the fuzz campaign, which starts children with several
controls, met the parent's changed prompt later and blamed the persona rules, so a whole
default certify still fails PE-01 or PE-02 beside FR-03 (ALSO_BREAKS); FR-03's cases of a valid
control beside a failing one name the rule at every seed.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart, Descriptor, PromptSection
from subagent_tck.spec import PERSONA_SECTION

BREAKS = "FR-03"
ALSO_BREAKS = ("PE-01", "PE-02")


class StackedPersonaStart(ChildStart):
    def install_persona(self, agent: Agent, value: object) -> str | None:
        installed = super().install_persona(agent, value)
        if installed is not None:  # the bug: pushed on the parent, popped only at publish
            self._pushed = [s for s in self.parent.scope.sections() if s.name == PERSONA_SECTION]
            self.parent.scope.add_section(PromptSection(PERSONA_SECTION, installed))
        return installed

    def publish(self, child: Agent, descriptor: Descriptor) -> None:
        pushed = getattr(self, "_pushed", None)
        if pushed is not None:
            self.parent.scope.remove_section(PERSONA_SECTION)
            for section in pushed:
                self.parent.scope.add_section(section)
        super().publish(child, descriptor)


def provider() -> Any:
    return reference_target(
        "rollback-leaves-persona-on-parent", child_start_class=StackedPersonaStart)
