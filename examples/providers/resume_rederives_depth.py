"""A resumed child's depth is re-derived from its parent (breaks DE-09).

On cold resume this runtime validates the child's stored header but then sets the child's depth
to its parent's header depth plus one, trusting the tree over the durable record. For a child
that was started normally the two agree, which is all the fixed checks resume; a stored header
that records a deeper position (a child resumed under another deployment's tree, or a header
written by a newer runtime) is lowered on resume, which DE-09 forbids: resume restores the
header depth and a restart can never lower the count. The check
``depth-resume-keeps-a-deeper-header`` writes such a header and resumes (it was SUBTLE), and so
does the fuzzer.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, Descriptor, Resume

BREAKS = "DE-09"


class RederivingResume(Resume):
    def apply(self, agent: Agent, descriptor: Descriptor) -> None:
        super().apply(agent, descriptor)
        header = self.host.store.header(self.session)
        if header.parent is not None and self.host.store.has(header.parent):
            # the bug: the parent's depth plus one instead of the stored header depth
            agent.depth = self.host.store.header(header.parent).depth() + 1


def provider() -> Any:
    return reference_target("resume-rederives-depth", resume_class=RederivingResume)
