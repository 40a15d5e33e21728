"""A child composed with a model runs on its parent's model instead (breaks MO-01).

The composed model is validated, then dropped: the agent is built with its parent's model (and
its descriptor records none), so a preset meant for a small, cheap model (or a request asking
for one) runs on whatever the parent runs on. A runtime that reads the model from the
conversation it forks, not from the child's composition, does this (docs/rules.md#MO-01).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.reference.agent import Agent

BREAKS = "MO-01"
#: The provider advertises modelSelection and no child runs on the model it asks for: the
#: capability visibly does nothing (CA-04, honest advertising).
ALSO_BREAKS = ("CA-04",)


class ParentModelStart(ChildStart):
    def install_model(self, agent: Agent, value: object, inherited: str | None) -> str | None:
        super().install_model(agent, value, inherited)  # validated ...
        agent.model = inherited  # the bug: ... and dropped for the parent's model
        return None


def provider() -> Any:
    return reference_target("child-runs-on-parent-model", child_start_class=ParentModelStart)
