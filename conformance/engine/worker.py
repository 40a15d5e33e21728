"""A worker process of ``certify --jobs N`` (docs/certify.md#jobs): what it is given, what it
says back, and its main loop.

Each worker is a fresh interpreter running :func:`main` (nothing of the kit's threads,
adapters or open connections is inherited, and the kit's main module is never imported
again). It makes the run's target and suite again from the run's :class:`Recipe` (a ``cmd:``
target starts an adapter of its own, with its own gateway and scratch state), checks that the
target describes itself as it did to the kit, says :class:`Ready`, and then runs one check run
per :class:`Job` exactly as the kit runs it alone (:func:`.scheduling.run_one`: a worker
thread, the job's time limit), answering :class:`Done`. ``None`` (or the kit going away) ends
it; it closes its target on the way out.

Ctrl-C is the kit's to handle: a worker ignores SIGINT and is stopped by the kit. Its stdout
is its stderr, so that nothing it prints can reach a report the kit writes on stdout.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from ..core.certificate import RunStatus
from ..core.drawn import DrawnRun
from ..core.outcome import Evidence, Failure, Outcome
from ..core.target import Target
from . import own_tools
from .planning import PlannedCheck, Suite
from .scheduling import Budget, Found, Shared, Worker, describe, run_one
from .timings import PartTally, Stopwatch, format_exception


@dataclass(frozen=True)
class Recipe:
    """How a worker process makes again what the run uses. Both are called in the worker, so
    both must pickle (module-level functions, or ``functools.partial`` of them): ``target``
    loads the run's target, ``suite`` builds its suite (None, or answering None: the default
    suite)."""

    target: Callable[[], Target]
    suite: Callable[[], Suite | None] | None = None


@dataclass(frozen=True)
class Setup:
    """What a worker is given once, when it starts."""

    recipe: Recipe
    shared: Shared
    #: the target's own global tools, which every check sees hidden (engine/own_tools.py)
    own: tuple[str, ...] = ()
    #: certify --timings: each job's clock readings come back with it
    timings: bool = False
    #: Hypothesis' home directory in the kit (None: Hypothesis' own choice)
    hypothesis_home: str | None = None


@dataclass(frozen=True)
class Job:
    """One check run: the planned check by its names, and the time it may take."""

    index: int
    check: str
    provider: str | None
    rules: tuple[str, ...]
    shard: int
    limit: Budget


@dataclass(frozen=True)
class Ready:
    """The worker loaded the target and the suite and waits for jobs."""


@dataclass(frozen=True)
class Failed:
    """The worker could not start: why."""

    message: str


@dataclass(frozen=True)
class Done:
    """One job's result: what :func:`.scheduling.run_one` found, the run's wall time,
    (``--timings``) its clock readings, what it drew of its partitions and the restriction
    channels it went through."""

    index: int
    found: Found
    duration: float
    tally: PartTally | None = None
    drawn: Sequence[DrawnRun] = ()
    #: the restriction channels it built its cases through (docs/driver-api.md#dialect)
    entry_points: tuple[str, ...] = ()


Message = Ready | Failed | Done


def _describe(exc: BaseException) -> str:
    return describe(exc)[:1000]


def _quiet_start(home: str | None) -> None:
    """Leave Ctrl-C to the kit, keep stdout clean, use the kit's Hypothesis home."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.dup2(2, 1)
    if home is not None:
        from hypothesis.configuration import set_hypothesis_home_dir

        set_hypothesis_home_dir(home)


def _watch_kit(lifeline: int) -> None:
    """End this worker when the kit ends, even mid-check (the kit killed outright): the
    lifeline pipe reads end-of-file then. Its adapters are stopped by the handlers the
    launcher installed (SIGTERM to itself)."""

    def watch() -> None:
        with contextlib.suppress(OSError):
            while os.read(lifeline, 1):
                pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="subagent-tck worker lifeline", daemon=True).start()


def _load(setup: Setup) -> tuple[Target, Suite]:
    """The run's target and suite, made again here; the target must describe itself as it
    did to the kit (else its check runs would judge another target)."""
    target = setup.recipe.target()
    try:
        made = setup.recipe.suite() if setup.recipe.suite is not None else None
        suite = made or Suite.default()
        info = target.info()
        if info != setup.shared.info:
            raise RuntimeError("the target loaded in the worker process describes itself "
                               "differently from the one the kit asked (GET /v1/info): "
                               f"{info.model_dump_json()[:300]}")
    except BaseException:
        with contextlib.suppress(Exception):
            target.close()
        raise
    return target, suite


def _planned(suite: Suite, setup: Setup, job: Job) -> PlannedCheck:
    providers = {p.name: p for p in setup.shared.info.providers}
    return PlannedCheck(suite.checks[job.check],
                        providers[job.provider] if job.provider is not None else None,
                        job.rules, job.shard)


def _crashed(job: Job, message: str, trace: str | None, shared: Shared) -> Found:
    """Every rule of ``job`` an error: its check could not run, or its result not be sent."""
    results = {rule: Evidence(Outcome.ERROR, "", [Failure(
        rule=rule, check=job.check, title=shared.titles[rule], error=True,
        message=f"check {job.check} could not run in a worker process ({message})",
        provider=job.provider, traceback=trace)]) for rule in job.rules}
    return results, RunStatus.CRASHED, None


def serve(conn: Connection, setup: Setup, lifeline: int) -> None:
    """The worker's life: start, say Ready (or Failed), run jobs until told to stop."""
    _quiet_start(setup.hypothesis_home)
    _watch_kit(lifeline)
    try:
        target, suite = _load(setup)
    except BaseException as exc:
        with contextlib.suppress(Exception):
            conn.send(Failed(_describe(exc)))
        return
    worker = Worker()
    # the target and the suite outlive every job: no collection walks them (.heap); the
    # worker's process ends with its last job, so the freeze is never undone
    gc.freeze()
    try:
        conn.send(Ready())
        while True:
            try:
                job: Any = conn.recv()
            except (EOFError, OSError):  # the kit went away
                break
            if not isinstance(job, Job):
                break
            try:
                done = _run(job, target, suite, setup, worker)
            except Exception as exc:  # the kit's own failure: an error of the check, never lost
                done = Done(job.index, _crashed(job, _describe(exc), format_exception(exc),
                                                setup.shared), 0.0)
            _send(conn, done, job, setup.shared)
            if done.found[1] is RunStatus.TIMEOUT:
                worker.close()  # the hung thread leaves when (if) its check returns
                worker = Worker()
    finally:
        worker.close()
        with contextlib.suppress(Exception):
            target.close()


def _run(job: Job, target: Target, suite: Suite, setup: Setup, worker: Worker) -> Done:
    began = time.monotonic()
    try:
        planned = _planned(suite, setup, job)
    except KeyError as exc:  # the suite made here lacks a check the kit planned
        return Done(job.index, _crashed(job, f"no check or provider {exc} here", "",
                                        setup.shared), time.monotonic() - began)
    watch = Stopwatch() if setup.timings else None
    given = own_tools.hiding(watch.bound(target, job.index) if watch is not None else target,
                             setup.own)
    drawn: list[DrawnRun] = []
    entry_points: list[str] = []
    found = run_one(worker, planned, given, setup.shared, job.limit, drawn, entry_points)
    return Done(job.index, found, time.monotonic() - began,
                watch.export(job.index) if watch is not None else None, drawn,
                tuple(entry_points))


def _send(conn: Connection, done: Done, job: Job, shared: Shared) -> None:
    """Send ``done``; a result that cannot be sent (it does not pickle) is an error of its
    check, never lost."""
    try:
        conn.send(done)
    except (EOFError, OSError):
        raise
    except Exception as exc:
        conn.send(Done(job.index, _crashed(job, f"its result could not be sent: "
                                           f"{_describe(exc)}", format_exception(exc), shared),
                       done.duration))


def main(argv: list[str] | None = None) -> None:
    """A worker's entry, given two file descriptors the kit passed, CHANNEL and LIFELINE: the
    kit's ``sys.path`` comes first on the channel, then the :class:`Setup` (which may name
    modules only that path finds), then jobs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    channel, lifeline = (int(arg) for arg in (argv or sys.argv[1:])[:2])
    conn = Connection(channel)
    sys.path[:] = conn.recv()
    setup = conn.recv()
    serve(conn, setup, lifeline)
