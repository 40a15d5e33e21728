"""A conforming target that adds a prompt section of its own (BREAKS None).

Real runtimes put their own text in a prompt beside the composed sections: DSH adds
``tools:sdk`` (how to write a ``run_code`` program) in the ``ptc`` and ``both`` modes. No rule
speaks of such a section (docs/rules.md#FR-01 asks that the composed sections stand in the
prompt; docs/rules.md#PE-04 that the model receives exactly what inspection shows), so a
certifier that compared whole prompts would fail it falsely. Like DSH, this target appends one
section, with a name no deployment declares, to the prompt of every agent whose presentation
mode offers ``run_code``, and so to each of its model requests alike. (The fixed persona checks
run their cases in the native mode; the fuzz campaign meets the section in every ``ptc`` and
``both`` deployment.)
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.spec import PresentationMode, Section

BREAKS = None

#: The runtime's own section: a name in its own namespace, text of its own.
GUIDANCE = Section("runtime:sdk", "Write run_code programs as async functions; await each tool.")


class GuidanceHost(Host):
    def prompt(self, agent: str) -> tuple[Section, ...]:
        sections = super().prompt(agent)
        if self.agent(agent).scope.mode is PresentationMode.NATIVE:
            return sections
        return (*sections, GUIDANCE)


def provider() -> Any:
    return ReferenceTarget(host_class=GuidanceHost, name="runtime-guidance-section")
