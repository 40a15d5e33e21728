"""A stored header rewritten under a live agent (fuzz/sessions.py ``rewrite``) on a runtime that
keeps one live owner per session and ends it to write the log (DSH's adapter: a restart would):
the campaign forgets that agent, as it does after a planted header, and keeps lockstep; the
rules say nothing of the agent a runtime ended."""

from __future__ import annotations

from typing import Any

import pytest

from subagent_tck.conformance.core.protocol import SessionHeader
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.step import Step

from .conftest import run_steps


class _OneOwner(ReferenceDeployment):
    def put_session_header(self, header: SessionHeader) -> None:
        self.host.retire_session_agents(header.session)
        super().put_session_header(header)


def _steps() -> list[Step]:
    start: dict[str, Any] = {"parent": "root", "provider": "spawn", "controls": {}}
    return [Step(op="start", args=start),
            Step(op="rewrite", args={"session": "c1", "depth": {"json": "2"}}),
            Step(op="start", args=start)]


def test_an_owner_the_runtime_ends_for_a_rewritten_header_is_forgotten_not_a_divergence(
) -> None:
    target = ReferenceTarget()
    target.deployment_class = _OneOwner
    assert run_steps(target, Setup(), _steps()) is None


def test_the_reference_keeps_the_owner_of_a_rewritten_header_in_lockstep() -> None:
    assert run_steps(ReferenceTarget(), Setup(), _steps()) is None


def test_a_rewrite_that_ends_the_only_live_agent_stops_the_example_as_inexpressible() -> None:
    target = ReferenceTarget()
    target.deployment_class = _OneOwner
    steps = [Step(op="rewrite", args={"session": "root", "depth": {"json": "1"}})]
    with pytest.raises(Unsupported, match="the only live agent"):
        run_steps(target, Setup(), steps)
