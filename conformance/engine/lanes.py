"""The lanes of ``certify --jobs N`` (docs/certify.md#jobs): where the parallel schedule
(:mod:`.jobs`) sends check runs, one at a time per lane.

A :class:`ProcessLane` is a worker process (:mod:`.worker`) with a thread that reads what it
says and puts it, with the lane, into the schedule's inbox; when the process ends unasked, the
thread says :class:`Died` with its exit status. A :class:`LocalLane` runs check runs in the
kit's own process, on the kit's own target, as ``--jobs 1`` does: the schedule falls back on
it when no worker process can run them.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Union

from ..core.certificate import RunStatus
from ..core.drawn import DrawnRun
from ..core.target import Target
from .planning import PlannedCheck
from .scheduling import Shared, Worker, run_one
from .worker import Done, Failed, Job, Message, Ready, Setup

#: Seconds a worker may take beyond a job's time limit to say so itself; past them the kit
#: stops it (a worker stuck where its own timeout cannot reach).
GRACE = 10.0
#: Seconds a worker may take to close its target (a ``cmd:`` adapter: SIGTERM, then SIGKILL
#: 3 s later) and exit when told to stop, before it is killed.
STOP_GRACE = 8.0


#: A worker's command: its classes must pickle under the module's own name, not ``__main__``.
_MAIN = "from subagent_tck.conformance.engine.worker import main; main()"


@dataclass(frozen=True)
class Died:
    """The worker process ended without being asked to (or stopped answering)."""

    status: str


Lane = Union["ProcessLane", "LocalLane"]
Inbox = queue.Queue[tuple[Lane, Message | Died]]


class ProcessLane:
    """One worker process (:func:`.worker.main` in a fresh interpreter), started at once;
    ``ready`` once it said so. It talks over a socket pair; a pipe whose end only the kit
    holds is its lifeline (it ends itself when the kit is gone). It runs in a session of its
    own: Ctrl-C at the terminal is the kit's to handle."""

    def __init__(self, slot: int, setup: Setup, inbox: Inbox) -> None:
        here, there = multiprocessing.Pipe()
        lifeline, self._lifeline = os.pipe()
        self.slot = slot
        self.started_at = time.monotonic()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _MAIN, str(there.fileno()), str(lifeline)],
                pass_fds=(there.fileno(), lifeline), stdin=subprocess.DEVNULL,
                start_new_session=True)
        finally:
            there.close()
            os.close(lifeline)
        self._conn = here
        self._inbox = inbox
        self.grace = GRACE
        self.ready = False
        self.job: Job | None = None
        self.sent_at = 0.0
        with contextlib.suppress(OSError, ValueError):  # gone at once: its reader says Died
            here.send(list(sys.path))  # before the setup, which names modules on it
            here.send(setup)
        threading.Thread(target=self._read, daemon=True,
                         name=f"subagent-tck worker {slot + 1} reader").start()

    @property
    def name(self) -> str:
        return f"worker process {self.slot + 1}"

    def _read(self) -> None:
        why = ""
        while True:
            try:
                message = self._conn.recv()
            except (EOFError, OSError):
                break
            except Exception as exc:  # an answer that does not unpickle
                why = f"; its answer could not be read ({type(exc).__name__}: {exc})"
                with contextlib.suppress(OSError):
                    self.process.kill()
                break
            self._inbox.put((self, message))
        self._inbox.put((self, Died(self.status() + why)))

    def status(self) -> str:
        """How the process ended (waiting a moment for an exit under way)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(1.0)
        code = self.process.returncode
        if code is None:
            return "it stopped answering"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"it was killed by signal {signal.Signals(-code).name}"
            return f"it was killed by signal {-code}"
        return f"it exited with status {code}"

    def send(self, job: Job) -> None:
        self.job, self.sent_at = job, time.monotonic()
        with contextlib.suppress(OSError, ValueError):  # gone: its reader says Died
            self._conn.send(job)

    def overdue(self, now: float) -> bool:
        """Busy past its job's limit and the grace: stuck where its own timeout cannot reach."""
        return self.job is not None and now > self.sent_at + self.job.limit.seconds + self.grace

    def wake(self, now: float) -> float:
        """Seconds until the schedule must look at this lane again."""
        if self.job is not None:
            return self.sent_at + self.job.limit.seconds + self.grace - now
        return float("inf")

    def ask_to_stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._conn.send(None)

    def kill(self) -> None:
        """SIGTERM (its launcher handlers stop its adapters); :meth:`finish` follows up."""
        with contextlib.suppress(OSError):
            self.process.terminate()

    def finish(self, deadline: float) -> None:
        """Wait for the process until ``deadline``, then SIGTERM, then SIGKILL (its adapters'
        watchdogs stop them); never leave it running."""
        for stop in (None, self.process.terminate, self.process.kill):
            if stop is not None:
                with contextlib.suppress(OSError):
                    stop()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(max(0.0, deadline - time.monotonic()) if stop is None
                                  else STOP_GRACE)
            if self.process.returncode is not None:
                break
        with contextlib.suppress(OSError):
            os.close(self._lifeline)
        with contextlib.suppress(OSError):
            self._conn.close()


class LocalLane:
    """Check runs in the kit's own process, one after another, on the kit's target."""

    ready = True
    slot = -1
    name = "the kit's own process"
    grace = 0.0  # run_one abandons a check at its limit

    def __init__(self, planned: Sequence[PlannedCheck], shared: Shared,
                 given: Callable[[int], Target], inbox: Inbox) -> None:
        self._planned, self._shared, self._given, self._inbox = planned, shared, given, inbox
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self.job: Job | None = None
        self.sent_at = 0.0
        threading.Thread(target=self._loop, daemon=True, name="subagent-tck local lane").start()

    def _loop(self) -> None:
        worker = Worker()
        try:
            while (job := self._jobs.get()) is not None:
                began = time.monotonic()
                drawn: list[DrawnRun] = []
                entry_points: list[str] = []
                found = run_one(worker, self._planned[job.index], self._given(job.index),
                                self._shared, job.limit, drawn, entry_points)
                self._inbox.put((self, Done(job.index, found, time.monotonic() - began,
                                            drawn=drawn, entry_points=tuple(entry_points))))
                if found[1] is RunStatus.TIMEOUT:
                    worker.close()  # the hung thread leaves when (if) its check returns
                    worker = Worker()
        finally:
            worker.close()

    def send(self, job: Job) -> None:
        self.job, self.sent_at = job, time.monotonic()
        self._jobs.put(job)

    def overdue(self, now: float) -> bool:
        return False  # run_one abandons a check at its limit

    def wake(self, now: float) -> float:
        return float("inf")

    def ask_to_stop(self) -> None:
        self._jobs.put(None)

    def kill(self) -> None:
        self._jobs.put(None)  # a check in progress is abandoned with its daemon thread

    def finish(self, deadline: float) -> None:
        return None


__all__ = ["Died", "Failed", "Inbox", "Lane", "LocalLane", "ProcessLane", "Ready"]
