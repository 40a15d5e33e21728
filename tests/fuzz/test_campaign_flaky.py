"""A target that answers the same steps differently on a second run (a transient fault) ends
the campaign with an error that says what the first run saw, not only that the runs differed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from target_wrappers import Changed, Wrapped

from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import ToolSpec
from subagent_tck.conformance.engine.runner import RunConfig, Suite, certify
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.fuzz.campaign import CampaignResult, run_campaign
from subagent_tck.fuzz.campaign_check import campaign_check
from subagent_tck.spec import CATALOGUE, ErrorCode, TckError


class _Reference(Wrapped):
    """The reference, each deployment's ``register_tool`` and ``view`` passed through the
    methods of the same names here (a subclass changes what one answers)."""

    def __init__(self) -> None:
        super().__init__(ReferenceTarget(), self._through)
        self.deployments = 0

    def _through(self, deployment: Any) -> Changed:
        self.deployments += 1
        number = self.deployments
        return Changed(deployment,
                       register_tool=lambda tool, agent=None: self.register_tool(
                           deployment, tool, agent),
                       view=lambda agent=None: self.view(deployment, number, agent))

    def register_tool(self, deployment: Any, tool: ToolSpec, agent: str | None) -> None:
        deployment.register_tool(tool, agent)

    def view(self, deployment: Any, number: int, agent: str | None) -> Any:
        """The view of ``agent`` in deployment ``number`` (1 for the first)."""
        return deployment.view(agent)


def _campaign(target: _Reference, output: Path, max_examples: int = 60) -> CampaignResult:
    """A campaign against ``target`` at seed 3, no database, its files in ``output``."""
    return run_campaign(target, seed=3, max_examples=max_examples, budget_seconds=60,
                        database_dir=None, output_dir=output)


class _OnceFaulty(_Reference):
    """The reference, but the first global tool registration of the whole campaign fails."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def register_tool(self, deployment: Any, tool: ToolSpec, agent: str | None) -> None:
        if not self.failed:
            self.failed = True
            raise TckError(ErrorCode.TIMEOUT, "a transient fault of the first run")
        deployment.register_tool(tool, agent)


def test_a_fault_that_does_not_recur_is_an_error_naming_what_the_first_run_saw(
        tmp_path: Any) -> None:
    target = _OnceFaulty()
    result = _campaign(target, tmp_path)
    assert target.failed
    assert result.error is not None, result
    assert "answered the same steps differently" in result.error
    assert "a transient fault of the first run" in result.error


class _OnceWrongView(_Reference):
    """The reference, but the first non-empty view of an agent the campaign reads is answered
    empty once: a divergence in the first run that its replay does not show."""

    def __init__(self) -> None:
        super().__init__()
        self.wrong = False

    def view(self, deployment: Any, number: int, agent: str | None) -> Any:
        seen = deployment.view(agent)
        if agent is not None and seen and not self.wrong:
            self.wrong = True
            return []
        return seen


def test_a_divergence_that_does_not_recur_leaves_only_the_rules_it_named_undecided(
        tmp_path: Any) -> None:
    target = _OnceWrongView()
    result = _campaign(target, tmp_path)
    assert target.wrong and result.error is not None, result
    assert "answered the same steps differently" in result.error
    assert result.unsettled and set(result.unsettled) < set(result.rules_exercised), result

    target = _OnceWrongView()
    check = campaign_check("wobbly", budget_seconds=None, max_examples=60, output_dir=tmp_path)
    suite = Suite(tuple(CATALOGUE), {check.name: check})
    certificate = certify(target, RunConfig(seed=3), suite=suite)  # type: ignore[arg-type]
    errors = {r.id for r in certificate.rules if r.outcome is Outcome.ERROR}
    # the same first-run wobble (the first non-empty view): the same observation, its rules
    # (those of the run's edition) undecided, far fewer than the campaign compared
    assert errors and errors <= set(result.unsettled), (errors, result.unsettled)
    assert len(errors) < len(result.rules_exercised)


class _EarlierWrongView(_Reference):
    """The reference, but in the first deployment the eighth non-empty view of an agent is
    answered empty, and in the second (Hypothesis running the same example again) the
    second one: the re-run raises earlier, so Hypothesis keeps no exception of either run
    ("inconsistent data generation"), as the JavaScript implementation once showed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[int, int] = {}  # a deployment's number -> its non-empty views so far

    def view(self, deployment: Any, number: int, agent: str | None) -> Any:
        answer = deployment.view(agent)
        if agent is not None and answer:
            self.seen[number] = self.seen.get(number, 0) + 1
            if self.seen[number] == {1: 8, 2: 2}.get(number):
                return []
        return answer


def test_a_wobble_whose_rerun_raises_earlier_leaves_only_the_rules_its_runs_named_undecided(
        tmp_path: Any) -> None:
    target = _EarlierWrongView()
    result = _campaign(target, tmp_path, max_examples=6)
    assert result.error is not None and "answered the same steps differently" in result.error
    assert result.unsettled, result.error
    assert set(result.unsettled) < set(result.rules_exercised), result
    assert "its runs saw" in result.error or "first run" in result.error
