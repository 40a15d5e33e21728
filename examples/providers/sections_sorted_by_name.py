"""A target that keeps the deployment's prompt sections sorted by name (breaks PE-01).

The runtime stores sections in a map ordered by name, the persona's
``deployment:persona-prefix`` among them, so a section whose name sorts before it
(``agents:guide``) lands in front of the persona, and the child persona no longer stands first,
where the deployment persona should. With section names that all sort after the persona's (the
kit's old fixed ``house:rules``) nothing shows; ``persona-section-order`` draws names on both
sides of it.
"""

from __future__ import annotations

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.prompt import PromptSection

BREAKS = "PE-01"
#: The sorted sections are the prompt every child composes from: a child that inherits the
#: persona (PE-02), shadows it with an empty one (PE-03) or renders its variables (PE-05) gets
#: its sections in the wrong order, and so do its first request and prompt inspection (FR-01,
#: FR-02, FR-04, FR-05) and a preset child (EN-01).
ALSO_BREAKS = ("PE-02", "PE-03", "PE-05", "EN-01", "FR-01", "FR-02", "FR-04", "FR-05")


class SortedSectionsHost(Host):
    def add_section(self, section: PromptSection, agent: str | None = None) -> None:
        super().add_section(section, agent)
        if agent is None:
            self._sections.sort(key=lambda s: s.name)


def provider() -> ReferenceTarget:
    return ReferenceTarget(host_class=SortedSectionsHost, name="sections-sorted-by-name")
