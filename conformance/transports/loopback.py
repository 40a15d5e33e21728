"""Loopback plumbing of the HTTP transport: listening on 127.0.0.1, clients, and blocking
work bounded in time without hanging the kit.

The servers themselves are :mod:`.httpd`. Work that may stall (a scripted model reply) runs on
daemon threads, so a stalled script cannot hold the interpreter at exit (docs/architecture.md).
"""

from __future__ import annotations

import ipaddress
import queue
import socket
import ssl
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

import httpx

from subagent_tck.spec import ErrorCode, TckError

T = TypeVar("T")

LOOPBACK = "127.0.0.1"


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a URL's hostname: no brackets, no port) names this machine only:
    ``localhost``, 127.0.0.0/8 or ::1 (docs/driver-api.md#security-and-processes)."""
    name = host.strip("[]").lower()
    if name in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def bind(host: str = LOOPBACK, port: int = 0) -> socket.socket:
    """A listening TCP socket (port 0: a free one, read it back with ``getsockname``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted sockets inherit it
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise TckError(ErrorCode.USAGE, f"cannot listen on {host}:{port}: {exc.strerror}; "
                       "choose another --port (0 picks a free one)") from exc
    sock.listen(128)
    sock.set_inheritable(False)
    return sock


#: Without it a request's headers and body wait for a delayed ACK: 40 ms per round trip.
NO_DELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def ssl_context() -> ssl.SSLContext:
    """The system's certificate store, for an ``https://`` target."""
    return ssl.create_default_context()


def http_client(url: str, timeout: httpx.Timeout | float, **options: Any) -> httpx.Client:
    """An httpx client for ``url``: no proxies from the environment, no delayed ACKs, and no
    certificate store loaded for plain ``http://`` (that alone costs tens of milliseconds,
    paid per client)."""
    transport = httpx.HTTPTransport(verify=not url.startswith("http://"),
                                    socket_options=NO_DELAY)
    return httpx.Client(timeout=timeout, trust_env=False, transport=transport, **options)


class _Workers:
    """Daemon worker threads, started on demand and kept: starting a thread per call costs
    about a millisecond on a busy machine, and a pool of ordinary threads would hold the
    interpreter at exit while one of them waits on a stalled call."""

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0

    def submit(self, task: Callable[[], None]) -> None:
        with self._lock:
            grow = self._idle == 0
            if not grow:
                self._idle -= 1
        self._tasks.put(task)
        if grow:
            threading.Thread(target=self._work, name="subagent-tck worker", daemon=True).start()

    def _work(self) -> None:
        while True:
            task = self._tasks.get()
            try:
                task()
            finally:
                with self._lock:
                    self._idle += 1


_WORKERS = _Workers()


class Stalled(Exception):
    """The work did not return within its time."""


def call_with_timeout(function: Callable[[], T], timeout: float) -> T:
    """``function()`` run on a daemon worker thread; :class:`Stalled` when it has not returned
    within ``timeout`` seconds (it then finishes, or not, on its own: nothing waits for it)."""
    outcome: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

    def work() -> None:
        try:
            outcome.put((True, function()))
        except BaseException as exc:  # handed to the caller
            outcome.put((False, exc))

    _WORKERS.submit(work)
    try:
        ok, value = outcome.get(timeout=timeout)
    except queue.Empty:
        raise Stalled(f"no result within {timeout:g} s") from None
    if ok:
        return cast(T, value)
    raise value
