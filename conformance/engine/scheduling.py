"""Scheduling: running the planned check runs, each safely, one after another
(docs/architecture.md#rooms).

Each check runs in a worker thread with a timeout, inside a deadline for the whole run; a check
that overruns is abandoned (its thread is a daemon) and ends as an error of its rules. Ctrl-C
stops the schedule after the check in progress; what ran is kept. How a run becomes evidence
is :mod:`.verdicts`'; the events each run emits are :mod:`.events`'.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from subagent_tck.spec import Edition

from ..core.certificate import CheckRun, RunStatus
from ..core.dialect import channels_of
from ..core.drawn import DrawnRun
from ..core.outcome import Evidence, Outcome
from ..core.protocol import TargetInfo
from ..core.target import Target
from .check_run import run_check
from .events import CheckFinished, CheckStarted, Handler, emit
from .planning import Cell, PlannedCheck, Table
from .profiles import Profile
from .timings import CheckSpan, format_exception
from .verdicts import RunContext, all_errors, error, judge, record

#: What one check run found: evidence per rule, how it ended, its note.
Found = tuple[dict[str, Evidence], RunStatus, str | None]


class Worker:
    """One daemon thread that runs checks in turn. Reused, because Hypothesis pays a garbage
    collection for every new thread it sees; replaced when a check overruns (the hung thread
    is abandoned: daemon, it never keeps the process alive)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        threading.Thread(target=self._loop, daemon=True, name="subagent-tck check").start()

    def _loop(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()

    def run(self, action: Callable[[], None], timeout: float) -> bool:
        """Run ``action`` on the worker; False when it did not finish within ``timeout``."""
        done = threading.Event()

        def job() -> None:
            try:
                action()
            finally:
                done.set()

        self._jobs.put(job)
        return done.wait(timeout)

    def close(self) -> None:
        self._jobs.put(None)


@dataclass(frozen=True)
class Shared:
    """What every check run of one certification shares."""

    info: TargetInfo
    edition: Edition
    profile: Profile
    seed: int
    #: --timeout, --deadline, and when the deadline falls (time.monotonic())
    timeout: float
    deadline: float
    deadline_at: float
    titles: Mapping[str, str]
    #: the target refuses unportable variable names (engine/variable_names.py)
    portable_variables: bool = False

    @property
    def expired(self) -> str:
        return f"the run's deadline of {self.deadline:g} s (--deadline) expired"


@dataclass
class Ran:
    """What a schedule ran: the certificate's check runs, their spans, and whether and why it
    stopped before the end."""

    runs: list[CheckRun] = field(default_factory=list)
    spans: list[CheckSpan] = field(default_factory=list)
    drawn: list[DrawnRun] = field(default_factory=list)  # what each run drew of its partitions
    interrupted: bool = False
    stopped_early: str | None = None


@dataclass(frozen=True)
class Budget:
    """The seconds one check run may take, and which limit set them."""

    seconds: float
    allowed: float  # what the check may take when the deadline is far
    reason: str

    @property
    def cut(self) -> bool:
        """The run's deadline, not the check's own limit, set the seconds."""
        return self.seconds < self.allowed


def budget(item: PlannedCheck, shared: Shared, now: float) -> Budget | None:
    """What ``item`` may take if it starts at ``now``; None when the deadline has passed."""
    remaining = shared.deadline_at - now
    if remaining <= 0:
        return None
    allowed = max(shared.timeout, item.check.timeout or 0.0)
    seconds = min(allowed, remaining)
    reason = ("what was left of --deadline" if seconds < allowed
              else "--timeout" if allowed == shared.timeout
              else f"the time check {item.check.name} asks for")
    return Budget(seconds, allowed, reason)


def describe(exc: BaseException) -> str:
    """``Type: message`` of ``exc``, whatever its ``__str__`` does."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:  # an exception that cannot even be printed
        return type(exc).__name__


def run_one(worker: Worker, planned: PlannedCheck, target: Target, shared: Shared,
            limit: Budget, drawn: list[DrawnRun],
            entry_points: list[str] | None = None) -> Found:
    """Run ``planned`` on ``worker`` within ``limit``: its evidence, status and note; what it
    drew of its partitions joins ``drawn`` (:func:`drew`), the restriction channels it built
    its cases through ``entry_points`` (docs/driver-api.md#dialect) (nothing, when it overran:
    its context is abandoned)."""
    ctx = RunContext(
        target=target, check=planned.check, edition=shared.edition, provider=planned.provider,
        providers=list(shared.info.providers), seed=shared.seed,
        max_examples=shared.profile.max_examples,
        portable_variables=shared.portable_variables, shard=planned.shard,
        channels=channels_of(shared.info.restrictionChannels), frame=shared.info.promptFrame,
        folding=shared.info.toolNameFolding, guidance=shared.info.toolGuidance,
        preset_tools=shared.info.presetTools,
    )
    escaped: list[tuple[str, str]] = []

    def work() -> None:
        try:
            run_check(ctx)
        except BaseException as exc:  # run_check's own handling failed: never a pass
            escaped.append((describe(exc), format_exception(exc)))

    if not worker.run(work, limit.seconds):  # abandoned: its context is never read again
        message = (f"check {planned.check.name} did not finish within {limit.seconds:g} s "
                   f"({limit.reason}): the target hung or is too slow")
        return all_errors(planned, message, shared.titles), RunStatus.TIMEOUT, None
    if escaped:
        head, trace = escaped[0]
        results = {rule: Evidence(Outcome.ERROR, "", [error(
            planned, rule, f"check {planned.check.name} could not report its result ({head})",
            shared.titles[rule], trace)]) for rule in planned.rules}
        drawn.append(drew(planned, ctx))
        _entered(ctx, entry_points)
        return results, RunStatus.CRASHED, noted(ctx)
    drawn.append(drew(planned, ctx))
    _entered(ctx, entry_points)
    return (*judge(planned, ctx, shared.titles), noted(ctx))


def drew(planned: PlannedCheck, ctx: RunContext | None = None) -> DrawnRun:
    """What a run of ``planned`` drew of its partitions (nothing without ``ctx``: a run that
    overran or never ran), which partitions did not exist in it and which of its rules it found
    not applicable (docs/certify.md#partitions)."""
    key = planned.provider.name if planned.provider else None
    if ctx is None:
        return DrawnRun(planned.check.name, key, planned.rules)
    return DrawnRun(planned.check.name, key, planned.rules, dict(ctx.drawn),
                    frozenset(ctx.inapplicable_partitions), frozenset(ctx.not_applicable),
                    dict(ctx.inexpressible))


def _entered(ctx: RunContext, entry_points: list[str] | None) -> None:
    if entry_points is not None:
        entry_points.extend(ctx.entry_points)


def noted(ctx: RunContext) -> str | None:
    """The check's note, with the restriction channels it built its cases through."""
    if not ctx.entry_points:
        return ctx.note
    through = "built through " + "; ".join(ctx.entry_points)
    return f"{ctx.note}; {through}" if ctx.note else through


def late(item: PlannedCheck, shared: Shared, found: Found, limit: Budget) -> Found:
    """A timeout that the run's deadline caused is the kit's limit, not the target's."""
    _, status, note = found
    if status is RunStatus.TIMEOUT and limit.cut:
        return (all_errors(item, f"{shared.expired} during check {item.check.name}",
                           shared.titles), RunStatus.DEADLINE, note)
    return found


def expired(item: PlannedCheck, shared: Shared) -> Found:
    """The run's deadline passed before ``item`` could start."""
    message = f"{shared.expired} before check {item.check.name} could run"
    return all_errors(item, message, shared.titles), RunStatus.DEADLINE, None


@dataclass
class Books:
    """Where finished check runs go: the certificate's cells, its check runs, the events."""

    planned: Sequence[PlannedCheck]
    shared: Shared
    table: Table
    #: the cells the checks decide (not the not-applicable and deselected ones)
    undecided: set[Cell]
    handlers: Sequence[Handler]
    ran: Ran = field(default_factory=Ran)

    def started(self, index: int) -> None:
        emit(self.handlers, CheckStarted(index, len(self.planned), self.planned[index]))

    def finished(self, index: int, found: Found, duration: float,
                 drawn: Sequence[DrawnRun],
                 entry_points: Sequence[str] = ()) -> None:
        """Keep one finished check run: its cells, its entry among the check runs, its
        event. Called in plan order, whatever order the runs finished in."""
        item = self.planned[index]
        results, status, note = found
        if status is RunStatus.DEADLINE and self.ran.stopped_early is None:
            self.ran.stopped_early = (f"{self.shared.expired} after {index} of "
                                      f"{len(self.planned)} check runs")
        key = item.provider.name if item.provider else None
        record(self.table, self.undecided, item, results)
        self.ran.runs.append(CheckRun(check=item.check.name, provider=key,
                                      rules=list(item.rules), status=status,
                                      duration=round(duration, 4), note=note,
                                      entry_points=list(entry_points)))
        self.ran.spans.append(CheckSpan(item.check.name, key, duration,
                                        item.check.supplementary, index))
        self.ran.drawn.append(drawn[0] if drawn else drew(item))
        emit(self.handlers, CheckFinished(
            index, len(self.planned), item, {r: e.outcome for r, e in results.items()},
            tuple(f for e in results.values() for f in e.failures), duration))

    def interrupt(self, index: int) -> None:
        """Ctrl-C after ``index`` check runs: the rules left did not run."""
        self.ran.interrupted = True
        self.ran.stopped_early = (f"interrupted (Ctrl-C) after {index} of {len(self.planned)} "
                                  "check runs: the rules left did not run")


def run_serially(books: Books, given: Callable[[int], Target]) -> Ran:
    """Run every planned check in turn on one worker thread (``certify --jobs 1``);
    ``given(index)`` is the target check run ``index`` sees."""
    shared = books.shared
    worker = Worker()
    try:
        for index, item in enumerate(books.planned):
            try:
                books.started(index)
                began = time.monotonic()
                drawn: list[DrawnRun] = []  # what the run drew: nothing, if it overran
                entry_points: list[str] = []
                limit = budget(item, shared, began)
                if limit is None:
                    found = expired(item, shared)
                else:
                    found = run_one(worker, item, given(index), shared, limit, drawn,
                                    entry_points)
                    if found[1] is RunStatus.TIMEOUT:
                        worker.close()  # the hung thread leaves when (if) its check returns
                        worker = Worker()
                    found = late(item, shared, found, limit)
            except KeyboardInterrupt:  # Ctrl-C: stop here, keep what ran (exit code 130)
                books.interrupt(index)
                break
            books.finished(index, found, time.monotonic() - began, drawn, entry_points)
    finally:
        worker.close()
    return books.ran
