"""A deny-only filter restored on cold resume offers the model only the tools it admitted then
(breaks FR-04).

A resumed child is composed from its descriptor (docs/rules.md#FR-04), and a deny-only filter
admits every global registered after it unless it names it (TF-09). This runtime restores the
descriptor's filter as it should (the view, lookup and execution follow the live registry), but
compiles the tool list of the resumed child's model requests once, at the resume, from what the
deny list admitted then: a global registered after the resume is in the child's view and never
offered to its model. Before the restart the same child is offered it; an allow-list descriptor
resumes right. The checks resumed children and compared their first request, registering
nothing after the resume, and certified it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, Descriptor, Host, ModelRequest, Resume

BREAKS = "FR-04"


class FreezingResume(Resume):
    def apply(self, agent: Agent, descriptor: Descriptor) -> None:
        super().apply(agent, descriptor)
        restored = descriptor.tool_filter
        if isinstance(restored, dict) and restored.get("allow") is None and restored.get("deny"):
            # the bug: the request's tools compiled once, from what the deny list admits now
            agent.__dict__["frozen_tools"] = self.host.resolver.schemas(agent.scope)


class FreezingHost(Host):
    resume_class = FreezingResume

    def build_request(self, agent: Agent) -> ModelRequest:
        request = super().build_request(agent)
        frozen = agent.__dict__.get("frozen_tools")
        return request if frozen is None else dataclasses.replace(request, tools=frozen)


def provider() -> Any:
    return ReferenceTarget(host_class=FreezingHost, name="resume-freezes-deny-filter")
