"""``certify --jobs N`` over the fake suite (docs/certify.md#jobs): the same certificate and the
same events whatever N, a worker that dies or hangs ends its check run as an error and the run
goes on, a target that runs one deployment at a time is run serially saying why."""

from __future__ import annotations

import functools
import io
from types import ModuleType
from typing import Any

import pytest
from rich.console import Console

from subagent_tck.conformance.core.certificate import Certificate, RunStatus
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine import lanes
from subagent_tck.conformance.engine.runner import (
    CheckFinished,
    CheckStarted,
    Event,
    Recipe,
    RunConfig,
    certify,
)
from subagent_tck.conformance.report.report_json import render
from subagent_tck.conformance.report.report_text import write_text

from . import fakes as importable  # what a worker process imports (by this name)

MIXED = {("TF-92", "spawn"): "break", ("PE-91", "spawn"): "skip", ("DE-91", "acp"): "crash",
         ("FR-91", None): "unconsumed", ("CA-91", "*"): "refuse"}


def run(fakes: ModuleType, behaviour: dict[tuple[str, str | None], str], jobs: int, *,
        recipe: bool = True, serial: str | None = None, fail: str | None = None,
        handlers: tuple[Any, ...] = (), **config: Any) -> Certificate:
    target = fakes.FakeTarget(behaviour, serial=serial)
    made = Recipe(functools.partial(importable.worker_target, tuple(behaviour.items()),
                                    serial, fail), importable.worker_suite)
    return certify(target, RunConfig(target_spec="python:fake:target", jobs=jobs, **config),
                   suite=fakes.SUITE, recipe=made if recipe else None, handlers=handlers)


def outcome(cert: Certificate, rule: str, provider: str | None) -> Outcome:
    return next(p.outcome for p in cert.rule(rule).providers if p.provider == provider)


def test_three_jobs_give_the_certificate_and_the_events_of_one(fakes: ModuleType) -> None:
    seen: dict[int, list[Event]] = {1: [], 3: []}
    certificates = {n: run(fakes, MIXED, n, handlers=(seen[n].append,)) for n in (1, 3)}
    serial, parallel = certificates[1], certificates[3]
    assert render(serial.stable()) == render(parallel.stable())
    assert serial.jobs is None  # --jobs 1 is today's run: no jobs record
    assert parallel.jobs is not None and parallel.jobs.asked == 3
    assert 1 <= parallel.jobs.used <= 3  # the workers ready before the last check run ended
    assert parallel.jobs.why is None and not serial.certified
    assert outcome(parallel, "TF-92", "spawn") == Outcome.FAIL

    def shape(events: list[Event]) -> list[tuple[str, int, str]]:
        return [(type(e).__name__, e.index, e.planned.label) for e in events
                if isinstance(e, (CheckStarted, CheckFinished))]

    # each check run's start and finish one after the other, in plan order, for any N
    assert shape(seen[1]) == shape(seen[3])
    assert [n for n, _, _ in shape(seen[3])[:4]] == ["CheckStarted", "CheckFinished"] * 2


def test_timings_of_a_parallel_run_count_what_each_worker_timed(fakes: ModuleType) -> None:
    serial = run(fakes, {}, 1, timings=True).timings
    parallel = run(fakes, {}, 2, timings=True).timings
    assert serial is not None and parallel is not None

    def counted(timings: Any) -> list[tuple[str, str | None, int, int]]:
        return [(t.check, t.provider, t.deployments, t.operations) for t in timings.checks]

    assert counted(parallel) == counted(serial) and sum(t[2] for t in counted(serial)) > 0
    assert {o.operation: o.count for o in parallel.operations} == {
        o.operation: o.count for o in serial.operations}


def test_a_worker_that_dies_ends_its_check_run_as_an_error_and_the_run_goes_on(
        fakes: ModuleType) -> None:
    cert = run(fakes, {("DE-91", "spawn"): "die", ("TF-92", "acp"): "break"}, 2)
    assert outcome(cert, "DE-91", "spawn") == Outcome.ERROR
    [failure] = [f for f in cert.rule("DE-91").failures if f.provider == "spawn"]
    assert "worker process" in failure.message and "status 7" in failure.message
    died = [r for r in cert.checks if r.check == "fake-depth" and r.provider == "spawn"]
    assert [r.status for r in died] == [RunStatus.CRASHED]
    # every other check run ran, in a new worker for the lane that lost one
    assert len(cert.checks) == len(run(fakes, {}, 1).checks)
    assert outcome(cert, "PE-91", "spawn") == Outcome.PASS
    assert cert.jobs is not None and cert.jobs.why is None


def test_a_check_that_hangs_in_a_worker_times_out_and_the_run_goes_on(
        fakes: ModuleType) -> None:
    cert = run(fakes, {("PE-91", "spawn"): "hang"}, 2, timeout=1.0)
    assert outcome(cert, "PE-91", "spawn") == Outcome.ERROR
    assert "did not finish within 1 s" in cert.rule("PE-91").failures[0].message
    assert outcome(cert, "TF-91", "spawn") == Outcome.PASS


def test_a_worker_stuck_past_its_limit_is_stopped_by_the_kit(
        fakes: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lanes, "GRACE", 1.0)
    cert = run(fakes, {("PE-91", "spawn"): "stuck"}, 2, timeout=1.0)
    [failure] = cert.rule("PE-91").failures
    assert failure.error and "worker process did not answer" in failure.message
    assert outcome(cert, "TF-91", "spawn") == Outcome.PASS


def test_ctrl_c_stops_every_worker_and_keeps_the_check_runs_that_finished(
        fakes: ModuleType) -> None:
    import psutil

    pressed: list[int] = []

    def ctrl_c_at_the_fourth(event: Event) -> None:
        if isinstance(event, CheckStarted) and event.index == 3 and not pressed:
            pressed.append(3)
            raise KeyboardInterrupt

    total = len(run(fakes, {}, 1).checks)
    # the last check run hangs in its worker when Ctrl-C comes
    cert = run(fakes, {("FR-91", None): "hang", ("TF-92", "spawn"): "break"}, 2,
               handlers=(ctrl_c_at_the_fourth,))
    assert cert.interrupted and "interrupted (Ctrl-C)" in (cert.stopped_early or "")
    assert 4 <= len(cert.checks) < total  # what finished is kept, the rest not-run
    assert outcome(cert, "TF-92", "spawn") == Outcome.FAIL
    assert outcome(cert, "FR-91", None) == Outcome.NOT_RUN
    workers = [p for p in psutil.Process().children(recursive=True)
               if "engine.worker import main" in " ".join(p.cmdline())]
    assert workers == []  # no worker left running


def test_a_target_that_runs_one_deployment_at_a_time_runs_serially_saying_why(
        fakes: ModuleType) -> None:
    reason = "one shared home directory \x1b[31m"
    cert = run(fakes, {}, 4, serial=reason)
    assert cert.certified and cert.jobs is not None
    assert cert.jobs.used == 1 and cert.jobs.why is not None and reason in cert.jobs.why
    out = io.StringIO()
    write_text(cert, Console(file=out, width=400))
    [line] = [x for x in out.getvalue().splitlines() if x.startswith("jobs: ")]
    assert line == ("jobs: 1 check run at once (--jobs 4): the target runs one deployment at a "
                    "time: one shared home directory \\x1b[31m")  # its text, escaped
    assert render(cert.stable()) == render(run(fakes, {}, 1, serial=reason).stable())


def test_without_a_recipe_a_run_of_several_jobs_runs_serially_saying_why(
        fakes: ModuleType) -> None:
    cert = run(fakes, {}, 2, recipe=False)
    assert cert.jobs is not None and cert.jobs.used == 1
    assert "no recipe" in (cert.jobs.why or "")


def test_when_no_worker_can_load_the_target_the_kit_runs_the_checks_itself(
        fakes: ModuleType) -> None:
    cert = run(fakes, {("TF-92", "spawn"): "break"}, 2, fail="no adapter here")
    assert render(cert.stable()) == render(run(fakes, {("TF-92", "spawn"): "break"},
                                               1).stable())
    assert cert.jobs is not None and "could not start" in (cert.jobs.why or "")
    assert "no adapter here" in (cert.jobs.why or "")


def test_a_jobs_count_below_one_is_a_usage_error(fakes: ModuleType) -> None:
    from subagent_tck.spec import ErrorCode, TckError

    with pytest.raises(TckError) as raised:
        run(fakes, {}, 0)
    assert raised.value.code is ErrorCode.USAGE and "--jobs 0" in raised.value.message


def test_a_check_run_draws_the_same_markers_whichever_check_runs_came_before_it() -> None:
    from subagent_tck.conformance.engine.check import CheckContext
    from subagent_tck.conformance.engine.checks._starts import marker

    def fresh() -> CheckContext:  # all a marker reads is the check run's own count
        return CheckContext(target=None, check=None, edition=None,  # type: ignore[arg-type]
                            provider=None, providers=[], seed=0, max_examples=1)

    earlier = fresh()
    first = [marker(earlier, "tf-channel"), marker(earlier, "tf-refused")]
    later = fresh()  # the next check run in the same process, as a worker runs them
    assert [marker(later, "tf-channel"), marker(later, "tf-refused")] == first
    assert first == ["[tck:tf-channel:1]", "[tck:tf-refused:2]"]
