"""A start whose setup fails on a bad persona template keeps the half-made child (breaks FR-03).

The start is refused with ``INVALID_TEMPLATE`` as it should be, but the rollback path only
handles failures of the tool registry: after a template error the private child, its session
header and its ``agent.published`` event stay, so observers see a child that was never
composed. Other setup failures (an unknown tool in the filter, an invalid output schema) still
roll back. A runtime that wraps only some setup steps in its cleanup handler behaves like this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart, Descriptor
from subagent_tck.spec import ErrorCode, TckError

BREAKS = "FR-03"


class NoRollbackOnTemplate(ChildStart):
    failure: TckError | None = None

    def setup_unpublished(self, child: Agent) -> Descriptor:
        try:
            return super().setup_unpublished(child)
        except TckError as exc:
            self.failure = exc
            raise

    def rollback(self, agent: Agent) -> None:
        if self.failure is not None and self.failure.code is ErrorCode.INVALID_TEMPLATE:
            # The bug: the half-made child is published instead of discarded.
            self.host.publish(agent, self.parent.session, {"provider": self.provider.name})
            return
        super().rollback(agent)


def provider() -> Any:
    return reference_target("no-rollback-on-bad-template", child_start_class=NoRollbackOnTemplate)
