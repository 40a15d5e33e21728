"""A ``subagent`` tool that words every provider as a fresh child (breaks ST-03).

The description and the prompt text are fixed strings written for a fresh child, whatever the
provider's ``inheritsParentContext`` says. A tool written against one transport and later bound
to a fork provider keeps telling the model to repeat the whole background, which the forked
child already has.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference.provider import Provider
from subagent_tck.reference.subagent_tool import FRESH_DESCRIPTION, FRESH_PROMPT, SubagentTool

BREAKS = "ST-03"


class FixedWordingTool(SubagentTool):
    def wording(self, provider: Provider) -> tuple[str, str]:
        return FRESH_DESCRIPTION, FRESH_PROMPT


def provider() -> ReferenceTarget:
    return reference_target("wording-ignores-fork", subagent_tool_class=FixedWordingTool)
