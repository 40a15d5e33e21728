"""The processes of a started adapter, found together and stopped together (docs/driver-api.md,
"Security and processes").

An adapter runs in a session of its own, but its descendants need not stay there: a shell with
job control moves each job into a process group of its own, and a daemon calls ``setsid``. A
:class:`Family` therefore finds the adapter's processes four ways:

- its **process group** and its **session** (the adapter leads both: it started a new session);
- its **ancestry**: the launcher polls the adapter's descendants while it runs
  (:meth:`Family.track`), so a grandchild that left the session and lost its parent is still
  known by pid (and start time, so a reused pid is never signalled);
- an **environment marker** (``SUBAGENT_TCK_ADAPTER=<token>``) every descendant inherits
  unless it clears its environment.

:meth:`Family.stop` sends SIGTERM to all of them, SIGKILL to what is left after the grace, and
returns the processes it could not stop: the launcher names them in a warning. The same
module is the watchdog (``python -m subagent_tck.conformance.transports.processes``): the launcher
starts it in its own session with a pipe; on every descendant it tracks the launcher writes
a line to the pipe, and when the pipe closes without the word ``stopped`` (the kit died), the
watchdog stops the family itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable

import psutil

#: The environment variable that marks every process started on behalf of one adapter.
MARKER = "SUBAGENT_TCK_ADAPTER"
#: The line the launcher writes to its watchdog when it stopped the family itself.
STOPPED = b"stopped"
_GONE = (psutil.NoSuchProcess, psutil.ZombieProcess)


def running(process: psutil.Process) -> bool:
    """Whether ``process`` (the very one: a reused pid does not count) runs; a zombie does not."""
    try:
        return bool(process.is_running() and process.status() != psutil.STATUS_ZOMBIE)
    except _GONE:
        return False
    except psutil.AccessDenied:
        return True


def describe(process: psutil.Process) -> str:
    """``pid N (command line)`` for a warning."""
    try:
        command = " ".join(process.cmdline()) or process.name()
    except (psutil.Error, OSError):
        command = "?"
    return f"pid {process.pid} ({command[:200]})"


class Family:
    """The processes of the adapter whose session leader is ``leader`` and whose environment
    carries ``MARKER=token``. ``exclude``: pids never to signal (the kit, its watchdog)."""

    def __init__(self, leader: int, token: str, exclude: Iterable[int] = (),
                 born: float | None = None) -> None:
        self.leader = leader
        self.token = token
        self.exclude = {os.getpid(), *exclude}
        self.seen: dict[int, psutil.Process] = {}  # tracked descendants
        self._root: psutil.Process | None = None
        self.born = born  # the leader's start time: tells its pid reused
        with contextlib.suppress(psutil.Error):
            root = psutil.Process(leader)
            if born is None or abs(root.create_time() - born) < 0.01:
                self._root, self.born = root, root.create_time()

    def _number_ours(self) -> bool:
        """Whether the leader's pid (its group's and session's id) still means this adapter:
        not when another process now has that pid (then the number was reused, and a group or
        session of that id is somebody else's)."""
        try:
            now = psutil.Process(self.leader).create_time()
        except psutil.Error:
            return True  # nobody has it: only our own stragglers can hold the id
        return self.born is not None and abs(now - self.born) < 0.01

    def track(self) -> list[psutil.Process]:
        """Record the leader's descendants now; returns the ones not seen before."""
        if self._root is None:
            return []
        try:
            children = self._root.children(recursive=True)
        except psutil.Error:
            return []
        new = [p for p in children if p.pid not in self.seen and p.pid not in self.exclude]
        for process in new:
            self.seen[process.pid] = process
        return new

    def adopt(self, pid: int, created: float) -> None:
        """Record a descendant the launcher tracked (the watchdog's side of the pipe)."""
        with contextlib.suppress(psutil.Error):
            process = psutil.Process(pid)
            if abs(process.create_time() - created) < 0.01:
                self.seen[pid] = process

    def _belongs(self, process: psutil.Process, by_number: bool) -> bool:
        pid = process.pid
        try:
            if by_number and (os.getsid(pid) == self.leader or os.getpgid(pid) == self.leader):
                return True
        except OSError:
            return False
        try:
            return bool(process.environ().get(MARKER) == self.token)
        except (psutil.Error, OSError):
            return False

    def members(self) -> list[psutil.Process]:
        """Every running process of the family now: tracked ones, the group, the session and
        the marked ones."""
        found = {pid: p for pid, p in self.seen.items() if running(p)}
        self.track()
        found.update((pid, p) for pid, p in self.seen.items() if running(p))
        by_number = self._number_ours()
        for process in psutil.process_iter():
            if process.pid in found or process.pid in self.exclude:
                continue
            if self._belongs(process, by_number) and running(process):
                found[process.pid] = process
        return [p for pid, p in found.items() if pid not in self.exclude]

    def _signal(self, processes: Iterable[psutil.Process], sig: int) -> None:
        if self._number_ours():
            with contextlib.suppress(OSError):
                os.killpg(self.leader, sig)
        for process in processes:
            with contextlib.suppress(psutil.Error, OSError):
                process.send_signal(sig)

    def stop(self, grace: float, reap: Callable[[], object] = lambda: None
             ) -> list[psutil.Process]:
        """SIGTERM to every member, SIGKILL to what runs after ``grace`` seconds; returns the
        processes still running after that (``reap`` is called while waiting: it reaps the
        leader when the caller is its parent)."""
        live = self.members()
        if not live:
            return []
        self._signal(live, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while live and time.monotonic() < deadline:
            time.sleep(0.02)
            reap()
            live = [p for p in live if running(p)]
            if not live:  # a last look for what they started meanwhile
                live = self.members()
                self._signal(live, signal.SIGTERM)
        live = [p for p in live if running(p)] + [p for p in self.members() if p not in live]
        if not live:
            return []
        self._signal(live, signal.SIGKILL)
        deadline = time.monotonic() + 1.0
        while live and time.monotonic() < deadline:
            time.sleep(0.02)
            reap()
            live = [p for p in live if running(p)]
        return live


def watchdog(argv: list[str]) -> int:
    """``LEADER TOKEN GRACE BORN``: read tracked pids (``PID CREATED`` lines) from stdin until
    it closes; unless the last line is ``stopped``, stop the family (BORN: the leader's start
    time, so that a reused pid is never taken for it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    leader, token, grace, born = int(argv[0]), argv[1], float(argv[2]), float(argv[3])
    family = Family(leader, token, born=born)
    last = b""
    for line in sys.stdin.buffer:
        last = line.strip()
        pid, _, created = last.partition(b" ")
        if pid.isdigit():
            with contextlib.suppress(ValueError):
                family.adopt(int(pid), float(created))
    if last != STOPPED:
        family.stop(grace)
    return 0


if __name__ == "__main__":
    sys.exit(watchdog(sys.argv[1:]))
