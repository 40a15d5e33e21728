"""A framed child gets its parent's persona inside the frame (breaks PE-01).

A runtime that frames the system prompt may build the frame's inside from the wrong agent: the
child's requests carry the runtime's preamble and notes around the *parent's* prompt, so the
child acts under the parent's persona instead of its own. This target declares its frame
(``examples/providers/_frames.py``) and does that; the declared frame cannot excuse another
agent's persona where the child's composed persona belongs.
"""

from __future__ import annotations

from typing import Any

from examples.providers._frames import FramedHost, FramedTarget

BREAKS = "PE-01"
ALSO_BREAKS = ("PE-02", "PE-03", "PE-04", "CA-04", "EN-01", "FR-01", "FR-04", "FR-05")


class SwapsPersona(FramedHost):
    def inside(self, agent: str) -> str:
        # the bug: the frame wraps the parent's prompt (the top-level agent's)
        parent = self.agent(agent).parent
        return super().inside(parent if parent is not None and parent != agent else agent)


def provider() -> Any:
    return FramedTarget(name="framed-persona-swapped", host_class=SwapsPersona)
