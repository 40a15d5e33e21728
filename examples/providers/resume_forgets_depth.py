"""A resumed session starts again at depth 0 (breaks DE-09).

Cold resume rebuilds the agent and rewrites its session header from scratch, with the default
``delegationDepth: 0``; a child resumed at depth 1 under ``maxDepth: 1`` may start children
again. A restart that re-creates the header instead of restoring it lets a crash-and-resume
loop escape any cap.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, Resume

BREAKS = "DE-09"


class ForgetfulResume(Resume):
    def run(self) -> Agent:
        agent = super().run()
        header = self.host.store.header(self.session)  # the bug: the header is re-created
        self.host.store.put_header(self.session, header.parent, "0", header.descriptor)
        agent.depth = 0
        return agent


def provider() -> Any:
    return reference_target("resume-forgets-depth", resume_class=ForgetfulResume)
