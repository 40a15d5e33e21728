"""After a cold resume the child's persona also travels as a message (breaks PE-04).

Before a restart everything is right: the system text is the inspected prompt and no message
carries the persona. But on cold resume this runtime "reminds" the child of its role: it adds a
user message with the persona's text to the restored conversation, a second channel prompt
inspection does not show (docs/rules.md#PE-04). The checks of one channel never resumed a child,
and those of a cold resume compared its system text and tools, not its messages: they certified
it.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, Host, Message
from subagent_tck.spec import PERSONA_SECTION

BREAKS = "PE-04"


class ReminderHost(Host):
    def restore_messages(self, agent: Agent) -> None:
        super().restore_messages(agent)
        own = [s.template for s in agent.scope.sections() if s.name == PERSONA_SECTION]
        persona = self.render_template(own[0], self.variables, "persona") if own else ""
        if persona.strip():  # the bug: the persona again, as a message
            agent.messages.append(Message("user", f"Reminder of your role: {persona}"))


def provider() -> Any:
    return ReferenceTarget(host_class=ReminderHost, name="persona-notice-after-resume")
