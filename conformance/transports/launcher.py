"""``cmd:COMMAND ARGS`` targets: start an adapter process, talk to it over HTTP, stop it.

The command is split like a POSIX shell line (:func:`shlex.split`) and run without a shell, in
its own session (so its own process group, out of reach of the terminal's Ctrl-C). The adapter
prints ``SUBAGENT_TCK_READY http://HOST:PORT`` on stdout once it listens (earlier lines, such
as a package manager's banner, are skipped; HOST must be a loopback address); the kit then asks
``GET /v1/info`` (and refuses a foreign protocol major version) and certifies it as an
``http://`` target.

The adapter's output is read in chunks on two threads for as long as it runs, so it never
blocks on a full pipe; only a bounded tail of each stream is kept, for error messages.

Nothing is left running (docs/driver-api.md, "Security and processes"): closing the target stops
the adapter's whole family (:mod:`.processes`: its process group, its session, the descendants
tracked while it ran and every process carrying its environment marker) with SIGTERM, then
SIGKILL after a grace period; a process that cannot be stopped is named in a warning. The same
happens on every other path: start-up failure, Ctrl-C (KeyboardInterrupt unwinds into
``close``), normal interpreter exit (``atexit``), SIGTERM/SIGHUP to the kit (handlers that stop
every adapter, then let the signal act as before), and a kit killed outright: a watchdog
process, in its own session, holds a pipe from the kit and stops the family when that pipe
closes.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from typing import IO, Any
from urllib.parse import urlsplit

import psutil

from subagent_tck.spec import ErrorCode, TckError

from .http_target import DEFAULT_TIMEOUT, HttpTarget
from .loopback import is_loopback_host
from .processes import MARKER, STOPPED, Family, describe
from .wire import READY_WORD

STARTUP_TIMEOUT = 30.0
GRACE = 3.0
#: Bytes asked of a pipe per read; a line is kept up to MAX_LINE characters (the rest dropped).
READ_CHUNK = 64 * 1024
MAX_LINE = 4096
#: Seconds between two looks at the adapter's descendants (each costs one scan of the process
#: table, about 10 ms among 500 processes): TRACK_INTERVAL for the first TRACK_EAGER seconds
#: (when adapters start their helpers and daemons), TRACK_CALM after.
TRACK_INTERVAL = 0.2
TRACK_EAGER = 5.0
TRACK_CALM = 1.0
#: Seconds between two attempts to reach an http:// target given --wait.
WAIT_POLL = 0.2


def _warn(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(f"warning: {message}", file=sys.stderr, flush=True)


class _Pump:
    """Drains one pipe of the adapter until it closes: chunked reads, lines split and cut to
    MAX_LINE, the last ``keep`` lines kept; ``ready`` (stdout only) is the first ready line."""

    def __init__(self, stream: IO[bytes] | None, keep: int, watch_ready: bool) -> None:
        self.tail: deque[str] = deque(maxlen=keep)
        self.ready: str | None = None
        self.closed = threading.Event()
        self.news = threading.Event()  # the ready line came, or the pipe closed
        self._watch = watch_ready
        assert stream is not None
        self._fd = stream.fileno()
        self.thread = threading.Thread(target=self._read, name="subagent-tck adapter output",
                                       daemon=True)
        self.thread.start()

    def _read(self) -> None:
        pending = b""
        overlong = False  # the current line passed MAX_LINE: drop the rest of it
        try:
            while True:
                try:
                    data = os.read(self._fd, READ_CHUNK)
                except OSError:
                    break
                if not data:
                    break
                *lines, rest = data.split(b"\n")
                for raw in lines:
                    if overlong:
                        overlong = False
                        continue
                    self._line(pending + raw)
                    pending = b""
                if overlong:
                    continue
                pending += rest
                if len(pending) > MAX_LINE:
                    self._line(pending)
                    pending, overlong = b"", True
            if pending and not overlong:
                self._line(pending)
        finally:
            self.closed.set()
            self.news.set()

    def _line(self, raw: bytes) -> None:
        line = raw[:MAX_LINE].decode("utf-8", "replace").rstrip("\r")
        self.tail.append(line)
        if self._watch and self.ready is None and line.startswith(READY_WORD):
            self.ready = line
            self.news.set()


class AdapterProcess:
    """One started adapter: its family of processes, its output tails, its watchdog."""

    def __init__(self, argv: list[str], *, grace: float = GRACE, cwd: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.argv = argv
        self.grace = grace
        #: processes of the adapter that could not be stopped (named in a warning)
        self.escaped: list[str] = []
        self._stopped = False
        self.token = secrets.token_hex(8)
        environment = dict(os.environ if env is None else env)
        environment[MARKER] = self.token
        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, cwd=cwd, env=environment, bufsize=0,
            )
        except OSError as exc:
            raise TckError(ErrorCode.USAGE, f"cannot start the adapter {shlex.join(argv)!r}: "
                           f"{exc.strerror or exc}: check the cmd: command") from None
        self.pgid = self.process.pid  # a session leader leads its own group
        _register(self)
        self.family = Family(self.pgid, self.token)  # not reaped yet: its pid is its own
        self.watchdog = subprocess.Popen(
            [sys.executable, "-m", "subagent_tck.conformance.transports.processes", str(self.pgid),
             self.token, str(grace), repr(self.family.born or 0.0)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.family.exclude.add(self.watchdog.pid)
        self._stdout = _Pump(self.process.stdout, 20, watch_ready=True)
        self._stderr = _Pump(self.process.stderr, 40, watch_ready=False)
        self.stdout_tail = self._stdout.tail
        self.stderr_tail = self._stderr.tail
        self._tracking = threading.Event()
        self._tracker = threading.Thread(target=self._track, name="subagent-tck adapter tracker",
                                         daemon=True)
        self._tracker.start()

    def _track(self) -> None:
        """Poll the adapter's descendants while it runs; tell the watchdog of each new one."""
        calm = time.monotonic() + TRACK_EAGER
        while not self._tracking.wait(TRACK_INTERVAL if time.monotonic() < calm
                                      else max(TRACK_INTERVAL, TRACK_CALM)):
            with contextlib.suppress(Exception):  # a vanished process mid-scan
                for process in self.family.track():
                    with contextlib.suppress(OSError, ValueError, psutil.Error):
                        line = f"{process.pid} {process.create_time()}\n"
                        self.watchdog.stdin.write(line.encode())  # type: ignore[union-attr]
                        self.watchdog.stdin.flush()  # type: ignore[union-attr]
            if self.process.poll() is not None and not self.family.seen:
                return

    def describe(self, settle: float = 0.0) -> str | None:
        """What is known beyond the wire: whether it exited (waiting up to ``settle`` seconds
        for an exit under way), and its stderr tail."""
        code = self.process.poll()
        if code is None and settle > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.process.wait(settle)
        if code is not None:  # its output ends at its exit: read the rest of it
            self._stdout.closed.wait(0.5)
            self._stderr.closed.wait(0.5)
        status = None if code is None else (
            f"the adapter exited with status {code}" if code >= 0
            else f"the adapter was killed by signal {-code}")
        err = " | ".join(line for line in self.stderr_tail if line.strip())[-600:]
        parts = [p for p in (status, f"its stderr ended with: {err}" if err else None) if p]
        return "; ".join(parts) or None

    def wait_ready(self, timeout: float) -> str:
        """The base URL of the ready line; TckError when it exits, stalls or says nonsense."""
        deadline = time.monotonic() + timeout
        pump = self._stdout
        while pump.ready is None and not pump.closed.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TckError(ErrorCode.TIMEOUT, f"the adapter printed no line "
                               f"'{READY_WORD} http://HOST:PORT' within {timeout:g} s"
                               + self._said())
            pump.news.wait(min(remaining, 0.5))
        line = pump.ready
        if line is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=max(0.1, min(2.0, deadline - time.monotonic())))
            raise TckError(ErrorCode.TARGET_UNREACHABLE, "the adapter closed its stdout "
                           f"before printing '{READY_WORD} http://HOST:PORT'" + self._said())
        return ready_url(line)

    def _said(self) -> str:
        note = self.describe()
        out = " | ".join(self.stdout_tail)[-300:]
        return "".join(f"; {p}" for p in (note, f"its stdout was: {out}" if out else None) if p)

    def stop(self) -> None:
        """Stop every process of the adapter's family (SIGTERM, SIGKILL after the grace);
        idempotent; never raises; a process that survives is named in a warning."""
        if self._stopped:
            return
        self._stopped = True
        try:
            self._tracking.set()
            if self._tracker is not threading.current_thread():
                self._tracker.join(1.0)  # its last line to the watchdog comes before ours
            with contextlib.suppress(OSError):
                self.process.stdin.close()  # type: ignore[union-attr]
            survivors = self.family.stop(self.grace, reap=self.process.poll)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=self.grace)
            for process in survivors:
                name = describe(process)
                self.escaped.append(name)
                _warn(f"a process of the adapter {shlex.join(self.argv)[:200]!r} could not be "
                      f"stopped and still runs: {name}; stop it yourself (kill -9 "
                      f"{process.pid}), and do not let the adapter start processes it cannot "
                      "stop (docs/driver-api.md#security-and-processes)")
        except Exception as exc:  # stopping never raises: say what went wrong
            _warn(f"stopping the adapter failed: {type(exc).__name__}: {exc}")
        finally:
            with contextlib.suppress(OSError, ValueError):
                self.watchdog.stdin.write(STOPPED + b"\n")  # type: ignore[union-attr]
                self.watchdog.stdin.close()  # type: ignore[union-attr]
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                self.watchdog.wait(timeout=1.0)
            with contextlib.suppress(OSError):
                self.watchdog.kill()
                self.watchdog.wait(timeout=self.grace)
            _unregister(self)


def ready_url(line: str) -> str:
    """The base URL of a ready line; a TckError naming the fix when it has none, or when its
    host is not a loopback address (docs/driver-api.md#security-and-processes)."""
    url = line[len(READY_WORD):].strip()
    if not url.startswith(("http://", "https://")) or " " in url:
        raise TckError(ErrorCode.PROTOCOL_ERROR, f"the adapter's ready line {line[:200]!r} "
                       f"does not end with its base URL: print "
                       f"'{READY_WORD} http://127.0.0.1:PORT'")
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port
    except ValueError as exc:
        raise TckError(ErrorCode.PROTOCOL_ERROR, f"the adapter's ready line {line[:200]!r} "
                       f"has a bad URL ({exc}): print '{READY_WORD} http://127.0.0.1:PORT'") \
            from None
    if not host or not is_loopback_host(host):
        raise TckError(ErrorCode.USAGE, f"the adapter's ready line names the host {host!r}, "
                       "which is not a loopback address: the kit talks to adapters on loopback "
                       "only; bind 127.0.0.1 (or ::1) and print "
                       f"'{READY_WORD} http://127.0.0.1:PORT'")
    return url


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


def connect(url: str, *, timeout: float = DEFAULT_TIMEOUT, wait: float = 0.0) -> HttpTarget:
    """An :class:`HttpTarget` at ``url`` whose ``GET /v1/info`` answered a known protocol.

    ``wait``: seconds to keep trying while nothing accepts the connection (an adapter still
    starting, e.g. in another CI step); then TARGET_UNREACHABLE naming the wait."""
    deadline = time.monotonic() + wait
    while True:
        target = HttpTarget(url, timeout=timeout)
        try:
            target.info()
            return target
        except TckError as exc:
            target.close()
            if exc.code is not ErrorCode.TARGET_UNREACHABLE or wait <= 0:
                raise
            left = deadline - time.monotonic()
            if left <= 0:
                raise TckError(ErrorCode.TARGET_UNREACHABLE, f"nothing answered GET /v1/info "
                               f"at {url} within --wait {wait:g} s (last: {exc.message}): "
                               "start the adapter first, or wait longer") from None
            time.sleep(min(WAIT_POLL, left))
        except BaseException:
            target.close()
            raise


# --- the loaders of :mod:`.targets` (``rest`` is the spec after its scheme's colon) -----------


def load_command(rest: str, wait: float | None = None) -> LaunchedTarget:
    """``wait``: how long to wait for the ready line (default STARTUP_TIMEOUT)."""
    return launch(rest, startup_timeout=STARTUP_TIMEOUT if wait is None else wait)


def load_http(rest: str, wait: float | None = None) -> HttpTarget:
    return connect("http:" + rest, wait=wait or 0.0)


def load_https(rest: str, wait: float | None = None) -> HttpTarget:
    return connect("https:" + rest, wait=wait or 0.0)
