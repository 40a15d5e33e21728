"""A cold-resumed child loses the spawn policy its descriptor holds (breaks SP-01).

The child's policy is stored in its descriptor, but resume re-applies only the persona, the
tool filter and the output schema: once resumed, the child may start every preset. A runtime
that added spawn policies after its resume code was written does this
(docs/rules.md#SP-01, whether the policy comes from a preset, a request or a descriptor).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Resume
from subagent_tck.reference.agent import Agent

BREAKS = "SP-01"


class ForgetfulResume(Resume):
    def install_spawn_policy(self, agent: Agent, value: object) -> dict[str, Any] | None:
        return None  # the bug: the descriptor's policy is not installed


def provider() -> Any:
    return reference_target("spawn-policy-lost-on-resume", resume_class=ForgetfulResume)
