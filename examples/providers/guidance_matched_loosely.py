"""A guidance section is matched to its tool by a loose comparison of names (breaks TF-16).

The section stays wherever some visible tool's name equals the guided one up to case, or one
name begins with the other: with ``Read`` hidden and ``read`` visible, or ``read_file``
hidden and ``read`` visible, the scope is guided to a tool it cannot call. Only a case that
hides the guided tool while a relative of its name stays visible shows it (TF-16's partition
``guided-tool-hidden-relative-visible``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, assemble_sections
from subagent_tck.spec import Section

BREAKS = "TF-16"


def loosely_visible(guided: str, visible: Collection[str]) -> bool:
    folded = guided.casefold()
    return any(v.casefold() == folded or v.casefold().startswith(folded)
               or folded.startswith(v.casefold()) for v in visible)


class LooseGuidanceHost(Host):
    def prompt(self, agent: str) -> tuple[Section, ...]:
        scope = self.agent(agent).scope
        visible = {e.name for e in self.resolver.view(scope)}
        # the bug: a guided tool with a visible relative counts as visible
        guided = {s.guides for s in self.deployment_sections()
                  if s.guides is not None and loosely_visible(s.guides, visible)}
        return assemble_sections(self.deployment_sections(), scope.sections(),
                                 visible | guided, self.variables, self.render_template)


def provider() -> Any:
    return ReferenceTarget(host_class=LooseGuidanceHost, name="guidance-matched-loosely")
