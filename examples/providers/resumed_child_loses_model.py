"""A cold-resumed child runs on its parent's model, not the one it was composed with (breaks
MO-02).

The child's model is stored in its descriptor, but resume builds the agent with the model its
parent session runs on: the first request after a restart already names another model
(docs/rules.md#MO-02: a resumed child keeps the model of its first request).

ALSO_BREAKS MO-01: a child the resumed agent starts without a model of its own sends its
parent's model, which is now the wrong one: its requests name another model than the one its
parent was composed with (docs/rules.md#MO-01; the campaign draws a start from a resumed child).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Resume
from subagent_tck.reference.agent import Agent

BREAKS = "MO-02"
ALSO_BREAKS = ("MO-01",)


class ParentModelResume(Resume):
    def install_model(self, agent: Agent, value: object, inherited: str | None) -> str | None:
        agent.model = inherited  # the bug: the descriptor's model is not read back
        return None


def provider() -> Any:
    return reference_target("resumed-child-loses-model", resume_class=ParentModelResume)
