"""A deny-only filter restored on cold resume becomes an allow list of what it admitted then
(breaks FR-04).

A resumed child is composed from its descriptor (docs/rules.md#FR-04), and a deny-only filter
admits every global registered after it unless it names it (TF-09). This runtime restores a
descriptor's deny-only filter as the list of globals it admits at the moment of the resume, an
allow list: a global registered after the resume never reaches the resumed child. Before the
restart the same child sees it; an allow-list descriptor resumes right. The checks resumed
children and compared their first request, registering nothing after the resume, and certified
it.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, Host, Resume

BREAKS = "FR-04"


class FreezingResume(Resume):
    def install_tool_filter(self, agent: Agent, value: object) -> dict[str, Any] | None:
        if isinstance(value, dict) and value.get("allow") is None and value.get("deny"):
            denied = set(value["deny"])
            value = {"allow": [n for n in self.host.registry.names() if n not in denied]}
        return super().install_tool_filter(agent, value)  # the bug: a snapshot, not the list


class FreezingHost(Host):
    resume_class = FreezingResume


def provider() -> Any:
    return ReferenceTarget(host_class=FreezingHost, name="resume-freezes-deny-filter")


