"""``cmd:COMMAND ARGS`` targets: start an adapter process, talk to it over HTTP, stop it.

The command is split like a POSIX shell line (:func:`shlex.split`) and run without a shell, in
its own session (so its own process group, out of reach of the terminal's Ctrl-C). The adapter
prints ``SUBAGENT_TCK_READY http://HOST:PORT`` on stdout once it listens (earlier lines, such
as a package manager's banner, are skipped); the kit then asks ``GET /v1/info`` (and refuses a
foreign protocol major version) and certifies it as an ``http://`` target.

Nothing is left running (DESIGN.md, "No hang ... Nothing is left running"): closing the target
sends SIGTERM to the whole process group, then SIGKILL after a grace period. The same happens on
every other path: start-up failure, Ctrl-C (KeyboardInterrupt unwinds into ``close``), normal
interpreter exit (``atexit``), SIGTERM/SIGHUP to the kit (handlers that stop every adapter, then
let the signal act as before), and a kit killed outright: a small watchdog process, in its own
session, holds a pipe from the kit and stops the group when that pipe closes.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from typing import IO, Any

from subagent_tck.spec import ErrorCode, TckError

from .http_target import DEFAULT_TIMEOUT, HttpTarget
from .wire import READY_WORD

STARTUP_TIMEOUT = 30.0
GRACE = 3.0

_WATCHDOG = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
pgid, grace = int(sys.argv[1]), float(sys.argv[2])
sys.stdin.buffer.read()
def alive():
    try:
        os.killpg(pgid, 0)
        return True
    except OSError:
        return False
if alive():
    try:
        os.killpg(pgid, signal.SIGTERM)
    except OSError:
        pass
    end = time.monotonic() + grace
    while alive() and time.monotonic() < end:
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
"""


def _running_members(pgid: int) -> bool | None:
    """Whether a process of group ``pgid`` still runs, read from /proc (None: no /proc).

    Zombies do not count: an orphaned grandchild that died stays a zombie until init reaps
    it, and some container inits reap slowly.
    """
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False


def _group_alive(pgid: int) -> bool:
    running = _running_members(pgid)
    if running is not None:
        return running
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class AdapterProcess:
    """One started adapter: its process group, its output tails, its watchdog."""

    def __init__(self, argv: list[str], *, grace: float = GRACE, cwd: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.argv = argv
        self.grace = grace
        self.stdout_tail: deque[str] = deque(maxlen=20)
        self.stderr_tail: deque[str] = deque(maxlen=40)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stopped = False
        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, cwd=cwd, env=env, bufsize=0,
            )
        except OSError as exc:
            raise TckError(ErrorCode.USAGE, f"cannot start the adapter {shlex.join(argv)!r}: "
                           f"{exc.strerror or exc}: check the cmd: command") from None
        self.pgid = self.process.pid  # a session leader leads its own group
        _register(self)
        self.watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, str(self.pgid), str(grace)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._pumps = [self._pump(self.process.stdout, self.stdout_tail, self._lines),
                       self._pump(self.process.stderr, self.stderr_tail, None)]

    @staticmethod
    def _pump(stream: IO[bytes] | None, tail: deque[str], lines: queue.Queue[str | None] | None
              ) -> threading.Thread:
        def read() -> None:
            assert stream is not None
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                tail.append(line)
                if lines is not None:
                    lines.put(line)
            if lines is not None:
                lines.put(None)

        thread = threading.Thread(target=read, name="subagent-tck adapter output", daemon=True)
        thread.start()
        return thread

    def describe(self, settle: float = 0.0) -> str | None:
        """What is known beyond the wire: whether it exited (waiting up to ``settle`` seconds
        for an exit under way), and its stderr tail."""
        code = self.process.poll()
        if code is None and settle > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.process.wait(settle)
        if code is not None:  # its output ends at its exit: read the rest of it
            for pump in self._pumps:
                pump.join(0.5)
        status = None if code is None else (
            f"the adapter exited with status {code}" if code >= 0
            else f"the adapter was killed by signal {-code}")
        err = " | ".join(line for line in self.stderr_tail if line.strip())[-600:]
        parts = [p for p in (status, f"its stderr ended with: {err}" if err else None) if p]
        return "; ".join(parts) or None

    def wait_ready(self, timeout: float) -> str:
        """The base URL of the ready line; TckError when it exits, stalls or says nonsense."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TckError(ErrorCode.TIMEOUT, f"the adapter printed no line "
                               f"'{READY_WORD} http://HOST:PORT' within {timeout:g} s"
                               + self._said())
            try:
                line = self._lines.get(timeout=min(remaining, 0.1))
            except queue.Empty:
                continue
            if line is None:
                self.process.wait(timeout=max(0.1, min(2.0, remaining)))
                raise TckError(ErrorCode.TARGET_UNREACHABLE, "the adapter closed its stdout "
                               f"before printing '{READY_WORD} http://HOST:PORT'" + self._said())
            if line.startswith(READY_WORD):
                url = line[len(READY_WORD):].strip()
                if not url.startswith(("http://", "https://")) or " " in url:
                    raise TckError(ErrorCode.PROTOCOL_ERROR, f"the adapter's ready line "
                                   f"{line!r} does not end with its base URL: print "
                                   f"'{READY_WORD} http://127.0.0.1:PORT'")
                return url

    def _said(self) -> str:
        note = self.describe()
        out = " | ".join(self.stdout_tail)[-300:]
        return "".join(f"; {p}" for p in (note, f"its stdout was: {out}" if out else None) if p)

    def stop(self) -> None:
        """SIGTERM to the group, SIGKILL after the grace; idempotent; never raises."""
        if self._stopped:
            return
        self._stopped = True
        try:
            with contextlib.suppress(OSError):
                self.process.stdin.close()  # type: ignore[union-attr]
            if _group_alive(self.pgid):
                _signal_group(self.pgid, signal.SIGTERM)
                deadline = time.monotonic() + self.grace
                while time.monotonic() < deadline:
                    self.process.poll()  # reap the leader so its group can vanish
                    if not _group_alive(self.pgid):
                        break
                    time.sleep(0.02)
                else:
                    _signal_group(self.pgid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=self.grace)
        finally:
            with contextlib.suppress(OSError):
                self.watchdog.kill()
                self.watchdog.wait(timeout=self.grace)
            _unregister(self)


# --- every path stops every adapter ----------------------------------------------------

_LIVE: set[AdapterProcess] = set()
_LIVE_LOCK = threading.Lock()
_HANDLED = (signal.SIGTERM, signal.SIGHUP)
_installed = False
_signals = False


def _register(adapter: AdapterProcess) -> None:
    global _installed, _signals
    with _LIVE_LOCK:
        _LIVE.add(adapter)
        first, _installed = not _installed, True
        chain = not _signals and threading.current_thread() is threading.main_thread()
        _signals = _signals or chain
    if first:
        atexit.register(stop_all)
    if chain:  # signal handlers can only be set from the main thread
        for sig in _HANDLED:
            _chain(sig)


def _unregister(adapter: AdapterProcess) -> None:
    with _LIVE_LOCK:
        _LIVE.discard(adapter)


def stop_all() -> None:
    """Stop every adapter this process started and has not stopped yet."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for adapter in live:
        adapter.stop()


def _chain(sig: int) -> None:
    previous = signal.getsignal(sig)

    def handler(signum: int, frame: Any) -> None:
        stop_all()
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:  # the default: die of the same signal
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    signal.signal(sig, handler)


# --- the target ------------------------------------------------------------------------


class LaunchedTarget(HttpTarget):
    """An :class:`HttpTarget` whose adapter the kit started; closing it stops the adapter."""

    def __init__(self, adapter: AdapterProcess, base_url: str, **options: Any) -> None:
        super().__init__(base_url, diagnose=adapter.describe, **options)
        self.adapter = adapter

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.adapter.stop()


def split_command(command: str) -> list[str]:
    text = command.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]  # cmd:"COMMAND ..." kept its quotes (a config file, not a shell)
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise TckError(ErrorCode.USAGE, f"cannot split the cmd: command {command!r}: {exc}") \
            from None
    if not argv:
        raise TckError(ErrorCode.USAGE, 'empty cmd: target: write cmd:"COMMAND ARGS", e.g. '
                       'cmd:"node adapter.js"')
    return argv


def launch(command: str, *, startup_timeout: float = STARTUP_TIMEOUT,
           timeout: float = DEFAULT_TIMEOUT, grace: float = GRACE, cwd: str | None = None,
           env: dict[str, str] | None = None) -> LaunchedTarget:
    """Start ``command``, wait for its ready line and a valid ``GET /v1/info``."""
    adapter = AdapterProcess(split_command(command), grace=grace, cwd=cwd, env=env)
    deadline = time.monotonic() + startup_timeout
    try:
        url = adapter.wait_ready(startup_timeout)
        target = LaunchedTarget(adapter, url, timeout=timeout)
        while True:
            try:
                target.info()
                break
            except TckError as exc:  # printed the line a moment before it listens: retry
                if (exc.code is not ErrorCode.TARGET_UNREACHABLE
                        or adapter.process.poll() is not None or time.monotonic() > deadline):
                    raise
                time.sleep(0.05)
    except BaseException:
        adapter.stop()
        raise
    return target


def connect(url: str, *, timeout: float = DEFAULT_TIMEOUT) -> HttpTarget:
    """An :class:`HttpTarget` at ``url`` whose ``GET /v1/info`` answered a known protocol."""
    target = HttpTarget(url, timeout=timeout)
    try:
        target.info()
    except BaseException:
        target.close()
        raise
    return target


# --- the loaders of :mod:`.targets` (``rest`` is the spec after its scheme's colon) -----------


def load_command(rest: str) -> LaunchedTarget:
    return launch(rest)


def load_http(rest: str) -> HttpTarget:
    return connect("http:" + rest)


def load_https(rest: str) -> HttpTarget:
    return connect("https:" + rest)
