"""The child persona also travels as a system message (breaks PE-04).

The system text is right, and prompt inspection reports the persona section, but every request
of a child with its own persona also carries that persona as an extra ``system`` message: a
second channel that prompt inspection does not show, so what the model receives is not what
inspection reports. A runtime that "reinforces" the role by injecting it into the conversation
behaves like this.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, Host, Message, ModelRequest
from subagent_tck.spec import PERSONA_SECTION

BREAKS = "PE-04"


class SecondChannelHost(Host):
    def build_request(self, agent: Agent) -> ModelRequest:
        request = super().build_request(agent)
        mine = [s for s in agent.scope.sections() if s.name == PERSONA_SECTION]
        if not mine:
            return request
        persona = next(s.text for s in self.prompt(agent.id) if s.name == PERSONA_SECTION)
        # The bug: the persona is sent again, as a message.
        return replace(request, messages=(Message("system", persona), *request.messages))


def provider() -> Any:
    return ReferenceTarget(host_class=SecondChannelHost, name="persona-as-second-channel")
