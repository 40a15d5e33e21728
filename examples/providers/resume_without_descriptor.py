"""Cold resume that ignores the stored descriptor (breaks FR-04).

The resumed child gets its conversation and its header depth back, but its historical persona
and tool filter are not re-applied: its first resumed request carries the deployment persona and
every global tool, and a descriptor that can no longer be applied (its allow list names a tool
that is gone) is not noticed. A runtime that treats the descriptor as informational metadata,
written at start and never read, behaves like this.

ALSO_BREAKS SP-01: the descriptor's spawn policy is not re-applied either, so a resumed child
starts presets its stored policy refuses (a resumed scope holds its descriptor's policies,
docs/rules.md#SP-01: the spawn-policy-resumed check).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, Descriptor, Resume

BREAKS = "FR-04"
ALSO_BREAKS = ("SP-01",)


class ResumeWithoutDescriptor(Resume):
    def apply(self, agent: Agent, descriptor: Descriptor) -> None:
        """The bug: nothing of the descriptor is applied to the resumed child."""


def provider() -> Any:
    return reference_target("resume-without-descriptor", resume_class=ResumeWithoutDescriptor)
