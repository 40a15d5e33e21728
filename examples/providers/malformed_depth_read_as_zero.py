"""A stored delegationDepth outside the domain is read as 0 (breaks DE-06).

A header whose depth is negative, fractional, non-finite, unsafe or not a number is taken for a
top-level agent: creating an agent with such a header, or resuming a session that stores one,
succeeds at depth 0, and children start at depth 1. A reader that falls back to a default on a
corrupt value quietly resets the count, which a crash-and-edit loop can use to escape any cap.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, Host, Resume
from subagent_tck.spec import ABSENT, ErrorCode, TckError, check_depth

BREAKS = "DE-06"
#: Reading a malformed stored depth as 0 also rewrites what the session headers report: a header
#: that stores 1e16 reads back 0 (DE-01, the depth a session records).
ALSO_BREAKS = ("DE-01",)


class ZeroingResume(Resume):
    def run(self) -> Agent:
        try:
            return super().run()
        except TckError as exc:
            if exc.code is not ErrorCode.INVALID_DEPTH:
                raise
            header = self.host.store.header(self.session)  # the bug: repaired as depth 0
            self.host.store.put_header(self.session, header.parent, "0", header.descriptor)
            return super().run()


class ZeroingHost(Host):
    resume_class = ZeroingResume

    def create_agent(
        self, *, header_depth: object = 0, runtime_depth: object = ABSENT, mode: object = None
    ) -> Agent:
        if not check_depth(header_depth).ok:
            header_depth = 0  # the bug: a malformed stored depth reads as 0
        return super().create_agent(
            header_depth=header_depth, runtime_depth=runtime_depth, mode=mode
        )


def provider() -> Any:
    return ReferenceTarget(host_class=ZeroingHost, name="malformed-depth-read-as-zero")
