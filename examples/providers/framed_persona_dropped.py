"""A framed child's persona is dropped inside the frame (breaks PE-01).

A runtime that frames an agent definition's body (Claude Code) once lost the body itself: the
child's system prompt was the runtime's preamble and notes with nothing between them but the
rest of the prompt. This target declares its frame (``examples/providers/_frames.py``) and
puts inside it the composed prompt without its persona section. A declared frame says only
what may surround the composed text, so the persona rules still find the persona missing.
"""

from __future__ import annotations

from typing import Any

from examples.providers._frames import FramedHost, FramedTarget
from subagent_tck.spec import PERSONA_SECTION, assemble_system_prompt

BREAKS = "PE-01"
ALSO_BREAKS = ("PE-02", "PE-04", "CA-04", "EN-01", "FR-01", "FR-04", "FR-05")


class DropsPersona(FramedHost):
    def inside(self, agent: str) -> str:
        # the bug: the persona section (the definition's body) is left out of the frame
        return assemble_system_prompt([s for s in self.prompt(agent)
                                       if s.name != PERSONA_SECTION])


def provider() -> Any:
    return FramedTarget(name="framed-persona-dropped", host_class=DropsPersona)
