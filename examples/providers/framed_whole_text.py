"""A conforming target that frames its children's system prompts and reports the whole framed
text in prompt inspection (BREAKS None).

A runtime seen only from its model traffic (Claude Code through its adapter) can show what an
agent's prompt is only as the one system text its last request carried, frame and all. This
target frames every child's system text as ``framed_persona`` does (``examples/providers/
_frames.py``) and, like such an adapter, answers prompt inspection with that whole text as one
section. The declared frame (docs/driver-api.md#dialect) lets the persona and first-request
rules, the published snapshot (FR-02) and the fuzz campaign find the composed text inside it.
"""

from __future__ import annotations

from typing import Any

from examples.providers._frames import FramedHost, FramedTarget
from subagent_tck.reference import Host
from subagent_tck.spec import Section, assemble_system_prompt

BREAKS = None


class WholeTextHost(FramedHost):
    def inside(self, agent: str) -> str:
        return assemble_system_prompt(Host.prompt(self, agent))

    def prompt(self, agent: str) -> tuple[Section, ...]:
        if self.agent(agent).parent is None:
            return super().prompt(agent)
        return (Section("system", self.system_text(agent)),)


def provider() -> Any:
    return FramedTarget(name="framed-whole-text", host_class=WholeTextHost)
