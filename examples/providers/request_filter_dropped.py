"""In the request-controls edition, a start request's tool filter is gated but never applied
(breaks EN-03).

The capability gate sees the request's ``toolFilter`` (a provider without ``toolFilter`` still
refuses it), but the child is composed without it, so it sees every global tool. A runtime that
validates the request's controls in one place and builds the child from a copy that lost the
filter behaves like this.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Agent, ChildStart, Host
from subagent_tck.spec import Edition

BREAKS = "EN-03"
#: In request-controls every check that gives a child a tool filter gives it in the request: the
#: filter rules run on children (TF-01, TF-03, TF-12), the first request, publication, rollback,
#: resume and later requests (FR-01..FR-05), and honest advertising of ``toolFilter`` (CA-04).
#: A preset's filter goes the same way, never validated: a preset naming tools that are not
#: registered starts a child (TF-08), which the fuzz campaign may meet first. Since the TF checks
#: put restrictions through every channel a target has (docs/driver-api.md#dialect), the child's
#: start request is one: a filter of no list or an unknown key is never refused (TF-07), and the
#: live rules read on the child's later requests see every global (TF-09, TF-10, TF-11).
ALSO_BREAKS = ("TF-01", "TF-03", "TF-07", "TF-08", "TF-09", "TF-10", "TF-11", "TF-12", "FR-01",
               "FR-02", "FR-03", "FR-04", "FR-05", "CA-04")


class FilterDropped(ChildStart):
    def install_tool_filter(self, agent: Agent, value: object) -> dict[str, Any] | None:
        return None  # the bug: the gated filter is never installed


class FilterDroppedHost(Host):
    child_start_class = FilterDropped


class RequestControlsTarget(ReferenceTarget):
    """Advertises the request-controls edition only, where this bug lives."""

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={"editions": [Edition.REQUEST_CONTROLS]})


def provider() -> Any:
    return RequestControlsTarget(host_class=FilterDroppedHost, name="request-filter-dropped")
