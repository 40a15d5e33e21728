"""Waiting for a peer's next bytes on loopback: a short busy poll before sleeping.

A certification over HTTP is thousands of round trips, one at a time, between the kit and the
target (and between the target and the kit's model gateway). When the two run on different
CPUs, each hand-over has to wake a CPU that went idle meanwhile; on a virtual machine without
guest halt-polling that wake-up costs about 0.1 ms, more than the round trip itself (measured on
the 2-vCPU CI machine: 0.35 ms per round trip with the two processes on two CPUs, 0.16 ms on one
CPU, 0.18 ms on two CPUs when both sides poll). So a reader that expects bytes soon polls its
socket for up to ``window`` seconds, yielding the CPU between polls, before it sleeps in
``recv``: bytes that come in time are read by a CPU that never went idle.

Polling only pays when it takes the CPU from nobody. When the CPU is shared (the peer runs on
the same CPU, or the machine is busy), ``sched_yield`` hands it over and the thread's count of
involuntary context switches grows: then this reader sleeps at once for its next ``pause``
waits, a pause that doubles each time (up to :data:`MAX_PAUSE` waits) and halves after each poll
that caught the bytes without handing the CPU over. A poll that runs out of window costs only
CPU time nobody else wanted.

Off where it cannot work: without ``sched_yield``, per-thread resource usage or ``select.poll``
(platforms other than Linux), on TLS sockets (their bytes may already wait, decrypted, in the
TLS layer), and with ``SUBAGENT_TCK_POLL_US=0`` in the environment (the window in microseconds;
default :data:`DEFAULT_WINDOW_US`). benchmarks/bench_http.py measures it on and off, and with
the processes on one CPU.
"""

from __future__ import annotations

import functools
import os
import select
import socket
import ssl
import time
from collections.abc import Callable

from subagent_tck.spec import ErrorCode, TckError

ENVIRONMENT = "SUBAGENT_TCK_POLL_US"
DEFAULT_WINDOW_US = 300
#: The longest a poll may last: past it, a wake-up is cheap next to the wait.
MAX_WINDOW_US = 10_000
#: The longest pause: a reader whose polls keep handing the CPU over still polls once per this
#: many waits, to notice when the CPU is free again.
MAX_PAUSE = 1024

def _never(timeout: int) -> list[tuple[int, int]]:
    return []


try:
    import resource

    _THREAD = resource.RUSAGE_THREAD  # Linux only

    def _switches() -> int:
        """This thread's involuntary context switches so far."""
        return resource.getrusage(_THREAD).ru_nivcsw

    #: (this thread's involuntary context switches, give the CPU to another runnable thread)
    PLATFORM: tuple[Callable[[], int], Callable[[], None]] | None = (_switches, os.sched_yield)
except (ImportError, AttributeError):  # pragma: no cover - not Linux
    PLATFORM = None


@functools.cache
def window() -> float:
    """The polling window in seconds, from ``SUBAGENT_TCK_POLL_US`` (read once); 0: off.

    Raises :class:`TckError` (``USAGE``) for a value that is not a whole number of
    microseconds from 0 to :data:`MAX_WINDOW_US`: the command line checks it before it starts.
    """
    text = os.environ.get(ENVIRONMENT, "").strip()
    if not text:
        return DEFAULT_WINDOW_US / 1e6
    if not text.isdigit() or int(text) > MAX_WINDOW_US:
        raise TckError(ErrorCode.USAGE, f"{ENVIRONMENT}={text!r} is not a polling window: give "
                       f"a whole number of microseconds from 0 (never poll) to {MAX_WINDOW_US} "
                       f"(default {DEFAULT_WINDOW_US}), or unset it")
    return int(text) / 1e6


def _never_relax() -> None:
    """Never called: a reader without the platform's means never polls."""


class BusyPoll:
    """Waits, before a blocking read of ``sock``, for its bytes by polling for up to ``seconds``
    (default: :func:`window`). ``wait`` never reads and never raises for the socket's sake: the
    caller's ``recv`` that follows reads, with the socket's own timeout.

    ``switches`` (this thread's involuntary context switches) and ``relax`` (give the CPU to
    another runnable thread, if any) are the platform's (:data:`PLATFORM`) unless both are given
    (tests give their own)."""

    __slots__ = ("_poll", "_relax", "_switches", "caught", "handed_over", "pause", "rest",
                 "seconds")

    def __init__(self, sock: socket.socket, seconds: float | None = None, *,
                 switches: Callable[[], int] | None = None,
                 relax: Callable[[], None] | None = None) -> None:
        self.seconds = window() if seconds is None else seconds
        given = (switches, relax) if switches is not None and relax is not None else PLATFORM
        self._switches, self._relax = given or (int, _never_relax)  # int() == 0: unused
        if given is None or isinstance(sock, ssl.SSLSocket) or not hasattr(select, "poll"):
            self.seconds = 0.0  # select.poll: not on Windows
            self._poll: Callable[[int], list[tuple[int, int]]] = _never
        else:
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            self._poll = poller.poll
        self.pause = 1  # how many waits the next hand-over skips
        self.rest = 0  # waits left that sleep at once
        self.caught = 0  # polls that found the bytes without handing the CPU over
        self.handed_over = 0  # polls during which the CPU went to another thread

    def wait(self) -> None:
        """Return once ``sock`` is readable, or the window is over, or at once (see above)."""
        if self.seconds <= 0:
            return
        if self.rest > 0:
            self.rest -= 1
            return
        poll = self._poll
        if poll(0):  # already there: nothing to learn
            return
        relax, clock = self._relax, time.perf_counter
        before = self._switches()
        end = clock() + self.seconds
        ready = False
        while clock() < end:
            relax()
            if poll(0):
                ready = True
                break
        if self._switches() != before:  # the CPU was wanted: sleep for the next waits
            self.handed_over += 1
            self.rest = self.pause
            self.pause = min(self.pause * 2, MAX_PAUSE)
        elif ready:
            self.caught += 1
            self.pause = max(1, self.pause // 2)
