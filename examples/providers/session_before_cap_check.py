"""A start refused at the cap leaves a session header behind (breaks DE-04).

The runtime allocates and stores the child's session before it compares the child's depth with
``maxDepth``, and does not remove it when the cap refuses the start: an orphan session at depth 0
shows in the session list. Creating the durable record first "so the id exists" does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ErrorCode, TckError

BREAKS = "DE-04"


class OrphanSessionStart(ChildStart):
    def decide_depth(self) -> None:
        try:
            super().decide_depth()
        except TckError as exc:
            if exc.code is ErrorCode.DEPTH_EXCEEDED:  # the bug: the session was stored first
                orphan = self.host.new_agent(depth=0, parent=self.parent.id)
                self.host.store.put_header(orphan.session, self.parent.session, "0", None)
            raise


def provider() -> Any:
    return reference_target("session-before-cap-check", child_start_class=OrphanSessionStart)
