"""A ``ptc`` child's first model request lacks ``run_code`` (breaks FR-01).

The child's scope is in ``ptc`` mode, so its model should be offered ``run_code`` (and nothing
else on the wire) from the first request on, and every inspection says so; but the sandbox
behind ``run_code`` is booted lazily, after the first model call, so the first request goes out
with no tools at all and only later requests carry ``run_code``. (In ``both`` mode the wire tools
keep the request usable and this runtime boots the sandbox eagerly.) A runtime that starts its
code sandbox on demand behaves like this.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, Host, ModelRequest
from subagent_tck.spec import RUN_CODE, PresentationMode

BREAKS = "FR-01"
PTC = PresentationMode.PTC


class LazyRunCodeHost(Host):
    def build_request(self, agent: Agent) -> ModelRequest:
        request = super().build_request(agent)
        started: set[str] = self.component_state.setdefault("lazy-run-code", set())
        if agent.parent is None or agent.id in started or agent.scope.mode is not PTC:
            return request
        started.add(agent.id)  # the bug: the sandbox comes up after this first request
        return replace(request, tools=tuple(t for t in request.tools if t.name != RUN_CODE))


def provider() -> Any:
    return ReferenceTarget(host_class=LazyRunCodeHost, name="run-code-after-first-request")
