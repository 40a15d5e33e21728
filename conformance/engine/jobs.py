"""``certify --jobs N``: the planned check runs, N at once, each lane a worker process with a
target of its own (docs/certify.md#jobs).

What runs is what ``--jobs 1`` runs: the same planned check runs (the campaign in its fixed
shards), each with the run's seed, each judged by :mod:`.verdicts` as it would be alone. Only
the order in which they start differs: the longest first (the campaign shards), so that the
lanes finish together. Their results are kept in plan order, whatever order they finish in:
the events (each check run's start and finish, one after the other) and the certificate read
the same for any N.

Robustness: a check run that overruns its limit is stopped by its worker (its own thread
timeout) or, when the worker itself is stuck, by the kit, which then stops that worker; a
worker that dies ends its check run as an error. Either way the lane gets a new worker and the
run goes on. Ctrl-C stops every worker at once and keeps what finished. A worker that cannot
start (its target does not load) leaves its lane; when no lane is left, the kit runs the rest
in its own process, as ``--jobs 1``; the certificate's ``jobs`` says so.
"""

from __future__ import annotations

import contextlib
import dataclasses
import queue
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.certificate import RunStatus
from ..core.target import Target
from .lanes import STOP_GRACE, Died, Inbox, Lane, LocalLane, ProcessLane
from .scheduling import Books, Ran, budget, expired, late
from .timings import Stopwatch
from .verdicts import all_errors
from .worker import Done, Failed, Job, Message, Ready, Setup

#: Seconds a worker may take to load its target (a ``cmd:`` adapter waits up to 30 s for its
#: ready line) before its lane is given up.
READY_TIMEOUT = 90.0
#: Worker processes a run may start again after one died or was stopped, per lane asked.
RESTARTS_PER_LANE = 3
#: Longest wait for news when nothing is due (Ctrl-C is seen at once either way).
_IDLE = 1.0


@dataclass
class Lanes:
    """How many lanes a parallel run had, and why fewer than asked, if so."""

    used: int = 0
    lost: list[str] = field(default_factory=list)


class _Schedule:
    def __init__(self, books: Books, setup: Setup, count: int,
                 given: Callable[[int], Target], watch: Stopwatch | None) -> None:
        self.books, self.setup, self.given, self.watch = books, setup, given, watch
        planned = books.planned
        self.inbox: Inbox = queue.Queue()
        # the longest first (a campaign shard asks for minutes), each group in plan order
        self.pending = deque(sorted(range(len(planned)),
                                    key=lambda i: -(planned[i].check.timeout or 0.0)))
        #: finished check runs by plan index, kept until their turn in plan order
        self.done: dict[int, Done] = {}
        self.released = 0
        self.restarts = RESTARTS_PER_LANE * count
        self.report = Lanes()
        self.slots: set[int] = set()
        self.lanes: list[Lane] = []
        self.every: list[Lane] = []
        for slot in range(count):
            self._start(slot)

    # --- the loop --------------------------------------------------------------------------

    def run(self) -> Ran:
        total = len(self.books.planned)
        try:
            while self.released < total:
                self._dispatch()
                self._wait()
                self._release()
        except KeyboardInterrupt:  # Ctrl-C: stop every worker, keep what finished
            for lane in self.every:
                lane.kill()
            self._release(everything=True)
            self.books.interrupt(len(self.done))
        finally:
            self._stop()
        self.report.used = len(self.slots)
        return self.books.ran

    def _dispatch(self) -> None:
        shared = self.books.shared
        if not self.lanes and self.pending:
            local = LocalLane(self.books.planned, shared, self.given, self.inbox)
            self.slots.add(local.slot)
            self.lanes.append(local)
            self.every.append(local)
        for lane in self.lanes:
            while lane.ready and lane.job is None and self.pending:
                index = self.pending.popleft()
                item = self.books.planned[index]
                limit = budget(item, shared, time.monotonic())
                if limit is None:
                    self.done[index] = Done(index, expired(item, shared), 0.0)
                    continue
                lane.send(Job(index, item.check.name,
                              item.provider.name if item.provider else None, item.rules,
                              item.shard, limit))
        if time.monotonic() >= shared.deadline_at:  # no lane free in time: expired
            while self.pending:
                index = self.pending.popleft()
                self.done[index] = Done(index, expired(self.books.planned[index], shared), 0.0)

    def _wait(self) -> None:
        now = time.monotonic()
        self._overdue(now)
        due = min([_IDLE, *([self.books.shared.deadline_at - now] if self.pending else []),
                   *(lane.wake(now) for lane in self.lanes),
                   *(lane.started_at + READY_TIMEOUT - now for lane in self.lanes
                     if isinstance(lane, ProcessLane) and not lane.ready)])
        try:
            lane, message = self.inbox.get(timeout=max(0.01, due))
        except queue.Empty:
            return
        if lane in self.lanes:  # news of a lane already given up is old news
            self._news(lane, message)

    def _news(self, lane: Lane, message: Message | Died) -> None:
        if isinstance(message, Ready):
            lane.ready = True
            self.slots.add(lane.slot)
        elif isinstance(message, Done):
            job = lane.job
            if job is None or job.index != message.index:
                return
            item = self.books.planned[job.index]
            self.done[job.index] = dataclasses.replace(
                message, found=late(item, self.books.shared, message.found, job.limit))
            if message.tally is not None and self.watch is not None:
                self.watch.absorb(job.index, message.tally)
            lane.job = None
        elif isinstance(message, Failed):
            self._give_up(lane, f"{lane.name} could not start: {message.message}")
        elif isinstance(message, Died):
            if not lane.ready:
                self._give_up(lane, f"{lane.name} ended before it was ready: {message.status}")
                return
            job = lane.job
            if job is not None:
                item = self.books.planned[job.index]
                self.done[job.index] = Done(job.index, (
                    all_errors(item, f"the worker process running check {item.label} ended "
                               f"before it reported ({message.status}): the target or the "
                               "check crashed it", self.books.shared.titles),
                    RunStatus.CRASHED, None), time.monotonic() - lane.sent_at)
            self._replace(lane, message.status)

    def _overdue(self, now: float) -> None:
        for lane in list(self.lanes):
            if isinstance(lane, ProcessLane) and not lane.ready:
                if now > lane.started_at + READY_TIMEOUT:
                    lane.kill()
                    self._give_up(lane, f"{lane.name} did not load the target within "
                                  f"{READY_TIMEOUT:g} s")
            elif lane.overdue(now) and lane.job is not None:
                job = lane.job
                item = self.books.planned[job.index]
                message = (f"check {item.check.name} did not finish within "
                           f"{job.limit.seconds:g} s ({job.limit.reason}) and its worker "
                           f"process did not answer {lane.grace:g} s later: the target hung or is "
                           "too slow (the worker was stopped)")
                found = (all_errors(item, message, self.books.shared.titles),
                         RunStatus.TIMEOUT, None)
                self.done[job.index] = Done(job.index, late(item, self.books.shared, found,
                                                             job.limit), now - lane.sent_at)
                lane.kill()
                self._replace(lane, "stopped by the kit")

    def _start(self, slot: int) -> None:
        """A new worker process for lane ``slot``; one that cannot even be started (no
        process left to the user, say) leaves the lane, saying why."""
        try:
            lane = ProcessLane(slot, self.setup, self.inbox)
        except OSError as exc:
            self.report.lost.append(f"worker process {slot + 1} could not be started: {exc}")
            return
        self.lanes.append(lane)
        self.every.append(lane)

    def _give_up(self, lane: Lane, why: str) -> None:
        self.lanes.remove(lane)
        self.report.lost.append(why)

    def _replace(self, lane: Lane, status: str) -> None:
        """A worker that died or was stopped: its lane gets a new one, while restarts last."""
        self.lanes.remove(lane)
        if self.restarts <= 0 or not isinstance(lane, ProcessLane):
            self.report.lost.append(f"{lane.name} ended ({status}) and no more workers are "
                                    "started")
            return
        self.restarts -= 1
        self._start(lane.slot)

    def _release(self, everything: bool = False) -> None:
        """Hand the finished check runs to the books in plan order (all that finished, past
        any gap, when ``everything``: Ctrl-C keeps what finished)."""
        order = sorted(self.done) if everything else None
        while True:
            if order is not None:
                if not order:
                    return
                index = order.pop(0)
                if index < self.released:
                    continue
            elif self.released not in self.done:
                return
            else:
                index = self.released
            done = self.done[index]
            self.books.started(index)
            self.released = index + 1  # kept from here on, even if Ctrl-C comes next
            self.books.finished(index, done.found, done.duration, done.drawn,
                                done.entry_points)

    def _stop(self) -> None:
        for lane in self.every:
            lane.ask_to_stop()
        deadline = time.monotonic() + STOP_GRACE
        for lane in self.every:
            with contextlib.suppress(Exception):
                lane.finish(deadline)


def run_in_parallel(books: Books, setup: Setup, count: int, given: Callable[[int], Target],
                    watch: Stopwatch | None = None) -> tuple[Ran, Lanes]:
    """Run ``books``' plan on ``count`` worker processes made from ``setup`` (``given``: the
    kit's own target for check run ``index``, used only when no worker can run them)."""
    schedule = _Schedule(books, setup, count, given, watch)
    return schedule.run(), schedule.report
