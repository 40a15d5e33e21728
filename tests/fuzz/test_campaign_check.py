"""The fuzz campaign in ``certify`` (``ci`` and ``thorough``): its findings join the
certificate, each a failure of its rule with the shrunk steps and the command that replays it
alone."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from target_wrappers import Changed, Wrapped

from subagent_tck.conformance.cli import main
from subagent_tck.conformance.core.certificate import Certificate, Verdict
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.core.target import Deployment, Target
from subagent_tck.conformance.engine.runner import PROFILES, RunConfig, Suite, certify
from subagent_tck.fuzz.campaign import replay
from subagent_tck.fuzz.campaign_check import CAMPAIGN_RULES, NAME, SHARDS, campaign_check
from subagent_tck.spec import RULES_BY_ID, ErrorCode, TckError

from .conftest import zoo_module

pytest_plugins = ["pytester"]


def spec_of(name: str) -> str:
    return f"python:examples.providers.{name}:provider"


def thorough(target: Target, spec: str, out: Path, *rules: str,
             suite: Suite | None = None, budget: float = 20.0) -> Certificate:
    check = campaign_check(spec, budget_seconds=budget, output_dir=out)
    base = suite or Suite.default()
    return certify(target, RunConfig(target_spec=spec, profile="thorough", rules=rules),
                   suite=Suite(base.rules, {**base.checks, check.name: check}))


@pytest.mark.parametrize("name", ["case_insensitive_allow", "resume_rederives_depth"])
def test_a_thorough_certificate_fails_a_subtle_entry_with_the_shrunk_steps_and_a_replay(
    at_root: Path, tmp_path: Path, name: str,
) -> None:
    module = zoo_module(name)
    breaks = module.BREAKS
    cert = thorough(module.provider(), spec_of(name), tmp_path, breaks)
    assert cert.verdict == Verdict.FAILED and cert.rule(breaks).outcome == Outcome.FAIL
    found = [f for f in cert.rule(breaks).failures if f.check == NAME]
    assert found, f"{name}: the fuzz campaign's finding is not in the certificate"
    failure = found[0]
    assert failure.example and "<-- diverged here" in failure.example
    assert failure.expected is not None and failure.observed is not None
    assert failure.replay is not None
    argv = shlex.split(failure.replay)
    assert argv[:3] == ["subagent-tck", "fuzz", "--replay"] and argv[4:] == [
        "--target", spec_of(name)]
    again = replay(module.provider(), argv[3])
    assert again.reproduced, again.report()
    runs = [r for r in cert.checks if r.check == NAME]  # its shards (docs/certify.md#jobs)
    assert len(runs) == SHARDS and all(r.note for r in runs)
    assert any(r.note.startswith("a divergence") for r in runs if r.note)


def test_a_thorough_run_of_the_reference_notes_the_campaign_and_finds_nothing(
    reference: Target, tmp_path: Path,
) -> None:
    cert = thorough(reference, "reference", tmp_path, "TF-01", "DE-05", budget=3.0)
    assert cert.verdict == Verdict.PASSED, [f.message for r in cert.failing() for f in r.failures]
    runs = [r for r in cert.checks if r.check == NAME]
    assert len(runs) == SHARDS
    for run in runs:
        assert run.status == "finished" and run.rules == ["DE-05", "TF-01"]
        assert run.note is not None and run.note.startswith("no divergence")
    assert not list(tmp_path.iterdir())  # no replay file without a finding


class _Failing(Wrapped):
    """The reference, until its ``deploys``-th deployment: then the target is gone."""

    def __init__(self, inner: Target, deploys: int) -> None:
        super().__init__(inner)
        self.left = deploys

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Deployment:
        self.left -= 1
        if self.left < 0:
            raise TckError(ErrorCode.TARGET_UNREACHABLE, "connection refused (the test's)")
        deployment: Deployment = super().deploy(config, gateway)
        return deployment


def test_a_target_lost_during_the_campaign_leaves_its_rules_error(
    reference: Target, tmp_path: Path,
) -> None:
    only_fuzz = Suite(Suite.default().rules, {})
    cert = thorough(_Failing(reference, 3), "reference", tmp_path, suite=only_fuzz,
                    budget=10.0)
    errors = {r.id for r in cert.rules if r.outcome == Outcome.ERROR}
    assert errors and errors <= set(CAMPAIGN_RULES)
    message = cert.rule(sorted(errors)[0]).failures[0].message
    assert "the fuzz campaign could not finish" in message and "connection refused" in message
    assert cert.verdict == Verdict.FAILED


def _explode(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("view exploded")


def _crashing_views(inner: Target) -> Wrapped:
    """``inner``, except that reading a view raises a plain exception (a crash)."""
    return Wrapped(inner, lambda deployment: Changed(deployment, view=_explode))


def test_a_crash_during_the_campaign_is_an_error_of_the_operations_rule(
    reference: Target, tmp_path: Path,
) -> None:
    cert = thorough(_crashing_views(reference), "reference", tmp_path,
                    suite=Suite(Suite.default().rules, {}), budget=10.0)
    crashed = [f for r in cert.rules for f in r.failures if f.check == NAME]
    assert len(crashed) == 1 and crashed[0].error
    assert "fuzzing found a crash" in crashed[0].message and "view exploded" in crashed[0].message
    assert cert.rule(crashed[0].rule).outcome == Outcome.ERROR
    assert crashed[0].rule in RULES_BY_ID


def test_the_command_line_prints_the_fuzz_finding_and_its_replay(
    at_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    spec = spec_of("case_insensitive_allow")
    code = main(["certify", "--target", spec, "--profile", "thorough", "--rule", "TF-01",
                 "--fuzz-budget", "20", "--fuzz-output-dir", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 1, captured.out
    assert "fuzz-campaign: a divergence" in captured.out
    assert "<-- diverged here" in captured.out
    command = next(line.split("replay this failure: ", 1)[1] for line in
                   captured.out.splitlines() if "replay this failure: " in line)
    assert "fuzz: target" not in captured.err  # progress lines only for a terminal
    assert main(shlex.split(command)[1:]) == 1
    assert "the same divergence showed again" in capsys.readouterr().out


def test_a_default_certify_runs_the_ci_campaign_bounded_by_deployments_and_notes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    # an explicit cap far above the deployments' need: a loaded test machine must not cut them
    assert main(["certify", "--target", "reference", "--format", "json", "--fuzz-budget",
                 "600", "--fuzz-output-dir", str(tmp_path)]) == 0
    cert = Certificate.model_validate_json(capsys.readouterr().out)
    runs = [r for r in cert.checks if r.check == NAME]
    assert [r.note.rsplit(", ", 1)[1] for r in runs if r.note] == [
        f"shard {n} of {SHARDS}" for n in range(1, SHARDS + 1)]
    deployments = 0
    for run in runs:
        assert run.note is not None and run.note.startswith("no divergence: ")
        deployments += int(run.note.split(": ", 1)[1].split(" deployments", 1)[0])
        assert "(profile ci)" in run.note
    assert PROFILES["ci"].fuzz_examples <= deployments < 2 * PROFILES["ci"].fuzz_examples
    assert not list(tmp_path.iterdir())  # nothing found, nothing written


def test_the_ci_campaign_runs_the_same_steps_for_a_seed_whatever_the_machine_speed() -> None:
    ci = PROFILES["ci"]
    # counted in deployments; the time cap is far above what they take in-process (~8 s)
    assert ci.fuzz_examples > 0 and ci.fuzz_seconds is not None and ci.fuzz_seconds >= 20
    check = campaign_check("reference", budget_seconds=None, max_examples=ci.fuzz_examples,
                           profile="ci")
    assert check.timeout is not None and check.timeout >= 600  # only a hung target meets it
    assert PROFILES["thorough"].fuzz_examples > ci.fuzz_examples


def test_a_campaign_cut_by_its_time_cap_says_so_in_the_note(
    reference: Target, tmp_path: Path,
) -> None:
    check = campaign_check("reference", budget_seconds=0.01, max_examples=381,
                           output_dir=tmp_path, profile="ci")
    base = Suite.default()
    cert = certify(reference, RunConfig(target_spec="reference", rules=("TF-01",)),
                   suite=Suite(base.rules, {check.name: check, **base.checks}))
    notes = [r.note or "" for r in cert.checks if r.check == NAME]
    # each shard has a quarter of the cap and of the deployments (96, 95, 95, 95)
    assert [n.split("; ", 1)[1] for n in notes] == [
        f"cut by the 0.0025 s time cap before {share} deployments (a slow target: "
        "--fuzz-budget raises it)" for share in (96, 95, 95, 95)]


def test_a_partial_ci_run_runs_no_campaign_unless_a_fuzz_option_asks_for_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    assert main(["certify", "--target", "reference", "--rule", "TF-01", "--format",
                 "json"]) == 0
    cert = Certificate.model_validate_json(capsys.readouterr().out)
    assert NAME not in {r.check for r in cert.checks}
    assert main(["certify", "--target", "reference", "--rule", "TF-01", "--format", "json",
                 "--fuzz-budget", "1", "--fuzz-output-dir", str(tmp_path)]) == 0
    cert = Certificate.model_validate_json(capsys.readouterr().out)
    assert NAME in {r.check for r in cert.checks}


@pytest.mark.parametrize("name", ["case_insensitive_allow", "sdk_bindings_cached"])
def test_a_default_certify_fails_a_subtle_entry_through_its_campaign(
    at_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
) -> None:
    breaks = zoo_module(name).BREAKS
    code = main(["certify", "--target", spec_of(name), "--format", "json",
                 "--fuzz-output-dir", str(tmp_path)])
    cert = Certificate.model_validate_json(capsys.readouterr().out)
    assert code == 1 and cert.verdict == Verdict.FAILED
    found = [f for f in cert.rule(breaks).failures if f.check == NAME]
    assert found and found[0].replay and "--replay" in found[0].replay


def test_the_pytest_plugin_with_the_thorough_profile_reports_a_fuzz_finding_on_its_rule_item(
    at_root: Path, pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    out = tmp_path / "findings"
    rules = len(Suite.default().rules)
    result = pytester.runpytest(
        f"--subagent-tck-target={spec_of('case_insensitive_allow')}",
        "--subagent-tck-profile=thorough", "--subagent-tck-fuzz-budget=20",
        f"--subagent-tck-fuzz-output-dir={out}", "-k", "TF-01", "-p", "no:randomly")
    result.assert_outcomes(failed=1, deselected=rules - 1)
    text = result.stdout.str()
    assert "FAILED subagent-tck::TF-01" in text
    assert "subagent-tck fuzz --replay" in text  # the finding's replay command is shown
    assert list(out.glob("*.json")), "the replay file is written where the option says"


@pytest.mark.parametrize("budget", ["-5", "0", "soon", "inf"])
def test_the_pytest_plugin_refuses_a_fuzz_budget_that_is_not_positive_seconds(
    pytester: pytest.Pytester, budget: str,
) -> None:
    result = pytester.runpytest("--subagent-tck-target=reference",
                                "--subagent-tck-profile=thorough",
                                f"--subagent-tck-fuzz-budget={budget}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "seconds" in result.stderr.str()
