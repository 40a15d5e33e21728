"""``certify --timings`` (docs/certify.md#timings): time per check run, per campaign and per
target operation, in the JSON and at the end of the text report; outcomes never change, and a
run without it writes what it always wrote."""

from __future__ import annotations

import io
import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagent_tck.conformance.cli import main
from subagent_tck.conformance.core.certificate import (
    Certificate,
    CheckTiming,
    OperationTiming,
    PhaseTiming,
    Timings,
)
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.engine.runner import RunConfig, Suite, certify
from subagent_tck.conformance.engine.timings import BEFORE_CHECKS, CheckSpan, Stopwatch
from subagent_tck.conformance.report import report_json, report_text
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.fuzz.campaign_check import campaign_check
from subagent_tck.spec import ErrorCode, TckError

ROOT = Path(__file__).parents[2]
SCHEMA = json.loads((ROOT / "conformance" / "core" / "certificate.schema.json")
                    .read_text("utf-8"))
#: A few rules of three families: per-provider and target-wide checks, quick on the reference.
RULES = ("TF-01", "PE-01", "DE-01")


def _suite(tmp_path: Path) -> Suite:
    """The default suite plus a small fuzz campaign bounded by deployments only (so that two
    runs of one seed fuzz the same steps)."""
    default = Suite.default()
    check = campaign_check("reference", budget_seconds=None, max_examples=6,
                           output_dir=tmp_path / "fuzz", profile="ci")
    return Suite(default.rules, {**default.checks, check.name: check})


def _run(tmp_path: Path, *, timings: bool, seed: int = 5) -> Certificate:
    return certify(reference_target(), RunConfig(target_spec="reference", rules=RULES,
                                                 seed=seed, timings=timings),
                   suite=_suite(tmp_path))


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    return _run(tmp_path_factory.mktemp("timed"), timings=True)


@pytest.fixture(scope="module")
def untimed(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    return _run(tmp_path_factory.mktemp("untimed"), timings=False)


def _non_negative(part: PhaseTiming) -> None:
    assert part.seconds >= 0 and part.operation_seconds >= 0
    assert part.deployments >= 0 and part.operations >= 0


def test_the_json_report_with_timings_validates_and_has_check_campaign_and_operation_entries(
    timed: Certificate,
) -> None:
    document = json.loads(report_json.render(timed))
    jsonschema.validate(document, SCHEMA)
    timings = document["timings"]
    assert timings["unit"] == "seconds"
    read = Timings.model_validate(timings)
    assert read.checks and read.operations
    campaigns = read.campaigns  # its four shards (docs/certify.md#jobs)
    assert len(campaigns) == 4
    assert {(c.check, c.provider) for c in campaigns} == {("fuzz-campaign", None)}
    assert sum(c.deployments for c in campaigns) == 6
    assert all(c.operations > c.deployments for c in campaigns)
    for part in [read.before_checks, *read.checks, *read.campaigns]:
        _non_negative(part)
        assert part.operation_seconds <= part.seconds + 0.01  # inside the part's wall time
    for operation in read.operations:
        assert operation.count > 0 and 0 <= operation.max_seconds <= operation.seconds
    # one entry per check run, in the order they ran, with the runner's own wall time
    runs = [(c.check, c.provider) for c in timed.checks]
    assert [(c.check, c.provider) for c in [*read.checks, *read.campaigns]] == runs
    by_run = {(c.check, c.provider): c for c in timed.checks}
    for entry in read.checks:
        assert abs(entry.seconds - by_run[entry.check, entry.provider].duration) < 1e-3
    # every deployment is counted once, by the part that asked for it
    counts = {o.operation: o.count for o in read.operations}
    parts = [read.before_checks, *read.checks, *read.campaigns]
    assert counts["deploy"] == sum(p.deployments for p in parts)
    assert {"deploy", "start", "info", "close"} <= set(counts)
    assert sum(counts.values()) >= sum(p.operations for p in parts)


def test_timings_change_no_outcome_and_the_stable_reports_of_two_runs_are_byte_identical(
    timed: Certificate, untimed: Certificate,
) -> None:
    assert timed.timings is not None and untimed.timings is None
    assert report_json.render(timed.stable()) == report_json.render(untimed.stable())
    assert report_text.render(timed.stable()) == report_text.render(untimed.stable())
    assert timed.verdict == untimed.verdict
    assert [r.outcome for r in timed.rules] == [r.outcome for r in untimed.rules]


def test_the_stable_form_fixes_clock_readings_and_keeps_the_rest(timed: Certificate) -> None:
    # a stable form that fixed nothing would make the comparison above fail on started_at
    note = "no divergence: 6 deployments, 120 steps in 0.4 s (300 steps/s), seed 5"
    cert = timed.model_copy(update={"checks": [timed.checks[0].model_copy(
        update={"note": note, "duration": 0.25})]})
    stable = cert.stable()
    assert stable.timings is None and stable.duration == 0 and stable.checks[0].duration == 0
    assert stable.started_at != cert.started_at
    assert stable.checks[0].note == ("no divergence: 6 deployments, 120 steps in 0 s "
                                     "(0 steps/s), seed 5")
    assert stable.seed == cert.seed and stable.rules == cert.rules


def test_a_run_without_timings_writes_no_timings_key_and_no_timings_lines(
    untimed: Certificate, timed: Certificate,
) -> None:
    document = json.loads(report_json.render(untimed))
    assert "timings" not in document
    jsonschema.validate(document, SCHEMA)  # an older certificate, without the key, is valid
    text = report_text.render(untimed)
    assert "--timings" not in text and "slowest" not in text
    with_them = report_text.render(timed)
    assert "slowest" in with_them
    assert with_them.rstrip().splitlines()[-1].startswith("verdict: ")  # the verdict stays last


def _timings(checks: list[CheckTiming], operations: list[OperationTiming]) -> Timings:
    return Timings(before_checks=PhaseTiming(seconds=0.01, deployments=1, operations=3,
                                             operation_seconds=0.005),
                   checks=checks, campaigns=[], operations=operations)


def _cert_with(base: Certificate, timings: Timings) -> Certificate:
    return base.model_copy(update={"timings": timings})


seconds = st.floats(min_value=0, max_value=1e4, allow_nan=False)
names = st.text(st.characters(categories=("L", "N", "Pd")), min_size=1, max_size=12)
check_timings = st.builds(CheckTiming, check=names, provider=st.none() | names,
                          seconds=seconds, deployments=st.integers(0, 500),
                          operations=st.integers(0, 10**5), operation_seconds=seconds)
operation_timings = st.builds(OperationTiming, operation=names, count=st.integers(1, 10**5),
                              seconds=seconds, max_seconds=seconds)


@given(checks=st.lists(check_timings, max_size=25),
       operations=st.lists(operation_timings, max_size=25))
def test_the_text_output_lists_at_most_ten_slowest_entries_with_their_unit(
    untimed: Certificate, checks: list[CheckTiming], operations: list[OperationTiming],
) -> None:
    text = report_text.render(_cert_with(untimed, _timings(checks, operations)), width=200)
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("timings ("))
    assert "seconds" in lines[head]
    shown_checks = [line for line in lines[head:] if re.match(r"  +\d+\.\d{3} s  ", line)]
    assert len(shown_checks) == min(10, len(checks)) + min(10, len(operations))
    listed = [float(line.split()[0]) for line in shown_checks]
    wanted = (sorted((round(c.seconds, 3) for c in checks), reverse=True)[:10]
              + sorted((round(o.seconds, 3) for o in operations), reverse=True)[:10])
    assert [round(x, 3) for x in listed] == pytest.approx(wanted, abs=1e-3)
    if checks:
        assert any(line.startswith("slowest ") and "check runs (seconds)" in line
                   for line in lines)
    if operations:
        assert any("target operations (seconds" in line for line in lines)


def test_a_target_that_raises_from_an_operation_leaves_the_same_traceback_timed_or_not(
    fakes: ModuleType,
) -> None:
    class Raising(fakes.FakeDeployment):  # type: ignore[name-defined,misc]
        def resume(self, session: str) -> None:
            raise RuntimeError("the target broke in resume")

    class Target(fakes.FakeTarget):  # type: ignore[name-defined,misc]
        def deploy(self, config: DeploymentConfig, gateway: Gateway) -> object:
            self.open_deployments += 1
            return Raising(self, gateway)

    behaviour = {("TF-92", "*"): "unsupported"}  # the fake check calls resume for it
    timed, untimed = (certify(Target(behaviour), RunConfig(timings=flag)) for flag in (True, False))
    traces = [f.traceback for r in timed.rules for f in r.failures if f.traceback]
    assert traces and all("the target broke in resume" in t for t in traces)
    assert not any(f"engine{os.sep}timings.py" in t for t in traces)
    assert report_json.render(timed.stable()) == report_json.render(untimed.stable())


# --- the stopwatch ---------------------------------------------------------------------


class _Deployment:
    """A deployment of a protocol without run_code, whose start refuses and whose run_turn
    calls ``hook`` while it runs (as a gateway reply hook aborts the turn: ST-09)."""

    def __init__(self) -> None:
        self.refusal = TckError(ErrorCode.INVALID_TOOL_FILTER, "refused")
        self.answer = ["view", "entries"]
        self.hook: Callable[[str], None] = lambda agent: None

    def view(self, agent: str | None = None) -> list[str]:
        return self.answer

    def start(self, request: object) -> object:
        raise self.refusal

    def run_turn(self, agent: str, prompt: str) -> str:
        self.hook(agent)
        return "done"

    def abort_turn(self, agent: str) -> None:
        pass

    def faults(self) -> list[str]:  # a transport's extra, not a driver operation
        return []

    def close(self) -> None:
        pass


class _Target:
    def __init__(self) -> None:
        self.made: list[_Deployment] = []
        self.in_process = True

    def info(self) -> str:
        return "info"

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> _Deployment:
        self.made.append(_Deployment())
        return self.made[-1]

    def close(self) -> None:
        pass


class _Clock:
    """A clock that advances one second per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_timing_hands_back_what_the_target_answered_or_raised_and_hides_nothing_it_lacks(
) -> None:
    inner = _Target()
    target = Stopwatch().bound(inner, 0)  # type: ignore[arg-type]
    deployment = target.deploy(DeploymentConfig(), Gateway())
    assert deployment.view(None) is inner.made[0].answer
    with pytest.raises(TckError) as refused:
        deployment.start(None)  # type: ignore[arg-type]
    assert refused.value is inner.made[0].refusal
    assert getattr(deployment, "run_code", None) is None  # still missing: not expressible
    assert getattr(target, "in_process", None) is True  # a transport's extras pass through


def test_a_deployment_counts_to_the_part_that_made_it_whatever_thread_calls_it() -> None:
    watch = Stopwatch(clock=_Clock())
    first = watch.bound(_Target(), 0)  # type: ignore[arg-type]
    deployment = first.deploy(DeploymentConfig(), Gateway())
    # a check abandoned at its timeout calls on after the next one started
    late = threading.Thread(target=lambda: deployment.view(None))
    late.start()
    late.join()
    second = watch.bound(_Target(), 1)  # type: ignore[arg-type]
    second.deploy(DeploymentConfig(), Gateway()).view(None)
    timings = watch.timings([CheckSpan("first", None, 5.0, False, 0),
                             CheckSpan("second", "spawn", 3.0, True, 1)])
    [one], [two] = timings.checks, timings.campaigns
    assert (one.check, one.deployments, one.operations) == ("first", 1, 2)
    assert (two.check, two.provider, two.deployments, two.operations) == ("second", "spawn", 1, 2)
    assert one.operation_seconds == 2.0  # one second per call on the test clock
    assert {o.operation: o.count for o in timings.operations} == {"deploy": 2, "view": 2}


def test_a_call_made_while_another_runs_counts_once_in_its_part_and_once_per_operation(
) -> None:
    watch = Stopwatch(clock=_Clock())
    inner = _Target()
    deployment = watch.bound(inner, BEFORE_CHECKS).deploy(  # type: ignore[arg-type]
        DeploymentConfig(), Gateway())
    inner.made[0].hook = deployment.abort_turn  # the kit's hook calls the deployment it holds
    assert deployment.run_turn("root", "go") == "done"
    deployment.faults()  # type: ignore[attr-defined]
    timings = watch.timings([])
    assert timings.before_checks.operations == 2  # deploy and run_turn; the abort is inside
    assert timings.before_checks.operation_seconds == 1.0 + 3.0
    by_name = {o.operation: o for o in timings.operations}
    assert set(by_name) == {"deploy", "run_turn", "abort_turn"}  # faults is not an operation
    assert by_name["run_turn"].seconds == 3.0 and by_name["abort_turn"].seconds == 1.0


# --- the command line ------------------------------------------------------------------


def test_certify_help_lists_timings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--timings" in out and "slowest ten" in out


def test_certify_timings_writes_the_timings_object_and_without_it_none(
    fakes: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdout", io.StringIO())
    target = "python:subagent_tck_test_fakes:healthy"
    with_it, without = tmp_path / "with.json", tmp_path / "without.json"
    assert main(["certify", "--target", target, "--seed", "3", "--timings",
                 "--report", f"json={with_it}"]) == 0
    assert main(["certify", "--target", target, "--seed", "3", "--report",
                 f"json={without}"]) == 0
    timed, untimed = (json.loads(p.read_text("utf-8")) for p in (with_it, without))
    jsonschema.validate(timed, SCHEMA)
    assert "timings" not in untimed
    assert timed["timings"]["checks"] and {o["operation"] for o in
                                           timed["timings"]["operations"]} >= {"deploy"}
    first, second = (Certificate.model_validate(d).stable() for d in (timed, untimed))
    assert report_json.render(first) == report_json.render(second)
