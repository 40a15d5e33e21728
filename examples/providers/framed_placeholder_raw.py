"""A framed child's persona goes inside the frame as its raw template (breaks PE-05).

A runtime that frames an agent definition's body may frame the body as written, before its
template is rendered: ``{{role}}`` reaches the model inside the frame. This target declares its
frame (``examples/providers/_frames.py``) and puts inside it the composed prompt with the
child's persona section as its raw template; prompt inspection shows the rendered text. No
model request may carry a raw placeholder, framed or not.
"""

from __future__ import annotations

from typing import Any

from examples.providers._frames import FramedHost, FramedTarget
from subagent_tck.spec import PERSONA_SECTION, assemble_system_prompt
from subagent_tck.spec.persona import Section

BREAKS = "PE-05"
ALSO_BREAKS = ("PE-01", "PE-02", "PE-04", "EN-01", "FR-01", "FR-04", "FR-05")


class RawTemplate(FramedHost):
    def inside(self, agent: str) -> str:
        # the bug: the persona section is framed as written, its placeholders unrendered
        raw = {s.name: s.template for s in self.agent(agent).scope.sections()}
        return assemble_system_prompt([
            Section(s.name, raw.get(PERSONA_SECTION, s.text)) if s.name == PERSONA_SECTION
            else s for s in self.prompt(agent)])


def provider() -> Any:
    return FramedTarget(name="framed-placeholder-raw", host_class=RawTemplate)
