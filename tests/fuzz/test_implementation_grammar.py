"""The campaign reads what the rules leave to the implementation as the rules do: a persona
placeholder spelled with spaces is the implementation's grammar (substituted or refused,
docs/rules.md#PE-05), and a stored depth outside the domain may keep a session from loading
with any refusal (docs/rules.md#DE-06). Each case is a reference host changed in one way: the
campaign keeps lockstep where the rules allow it, and diverges under the rule where they do
not, never stopping on an error of its own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.step import Step
from subagent_tck.reference import Agent, Host, Resume
from subagent_tck.reference.prompt import render_strict
from subagent_tck.spec import ErrorCode, TckError

from .conftest import run_steps

#: the classic words (CLASSIC's preset ``lead`` has the persona "Lead of {{ team }}.")
SETUP = Setup(tools=("read", "search"))
LEAD = [Step(op="start", args={"parent": "root", "provider": "spawn",
                               "controls": {"preset": "lead"}, "label": "c1"})]


def _narrow(template: str, variables: Mapping[str, str], what: str) -> str:
    """DSH 0.1.x's grammar: a placeholder with spaces inside its braces is malformed."""
    if "{{ " in template or " }}" in template:
        raise TckError(ErrorCode.INVALID_TEMPLATE, f"{what}: malformed placeholder in "
                       f"{template!r} (names match [a-z][a-z0-9_]*)")
    return render_strict(template, variables, what)


class _RendersNarrowlyInSetup(Host):
    """Renders the prompt it publishes with the narrow grammar, after the child was made."""

    render_template = staticmethod(_narrow)


class _InspectsNarrowly(ReferenceDeployment):
    """Answers prompt inspection with the narrow grammar's refusal, its own runs unchanged:
    DSH renders a persona only when a request is built, after the child is published."""

    def prompt(self, agent: str) -> Any:
        for section in self.host.agent(agent).scope.sections():
            _narrow(section.template, self.host.variables, "persona")
        return super().prompt(agent)


class _RendersNarrowlyLater(ReferenceTarget):
    deployment_class = _InspectsNarrowly


class _RefusesUnloadable(Resume):
    """A stored depth outside the domain keeps the log from loading: NOT_RESUMABLE."""

    def run(self) -> Agent:
        try:
            return super().run()
        except TckError as exc:
            if exc.code is ErrorCode.INVALID_DEPTH:
                raise TckError(ErrorCode.NOT_RESUMABLE, "corrupt session log") from exc
            raise


class _UnloadableHost(Host):
    resume_class = _RefusesUnloadable


def _run(host: type[Host] | type[ReferenceTarget] | None, steps: list[Step]) -> Any:
    target = host() if isinstance(host, type) and issubclass(host, ReferenceTarget) else \
        ReferenceTarget(**({} if host is None else {"host_class": host}))
    try:
        return run_steps(target, SETUP, steps)
    finally:
        target.close()


def test_the_reference_keeps_lockstep_on_a_spaced_placeholder() -> None:
    assert _run(None, LEAD) is None


def test_a_spaced_placeholder_refused_after_the_child_was_made_diverges_under_fr03() -> None:
    inspected = [*LEAD, Step(op="prompt", args={"agent": "c1"})]
    for host in (_RendersNarrowlyInSetup, _RendersNarrowlyLater):
        divergence = _run(host, inspected)
        assert divergence is not None, host
        assert divergence.finding.rule == "FR-03", str(divergence)
    assert "{{ team }}" in divergence.finding.message  # the later refusal names the spelling


def test_a_session_that_does_not_load_for_its_stored_depth_may_be_refused_with_any_code() -> None:
    steps = [Step(op="start", args={"parent": "root", "provider": "spawn", "controls": {},
                                    "label": "c1"}),
             Step(op="plant", args={"session": "c1", "depth": {"json": "-1"}, "label": "r1"})]
    assert _run(_UnloadableHost, steps) is None
    assert _run(None, steps) is None
