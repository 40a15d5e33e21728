"""Serving an ASGI app on 127.0.0.1 and running blocking work without hanging the kit.

The HTTP transport runs servers inside the kit (the model gateway, and in tests and benchmarks
the reference behind the driver API) and calls blocking code from async handlers. Both must
never keep the kit alive: servers stop with a bounded grace, and blocking work runs on daemon
threads so a stalled script cannot hold the interpreter at exit (DESIGN.md, "No hang").
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import uvicorn

from subagent_tck.spec import ErrorCode, TckError

T = TypeVar("T")

LOOPBACK = "127.0.0.1"


def bind(host: str = LOOPBACK, port: int = 0) -> socket.socket:
    """A listening TCP socket (port 0: a free one, read it back with ``getsockname``)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
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


def uvicorn_config(app: Any, **options: Any) -> uvicorn.Config:
    options.setdefault("log_level", "warning")
    options.setdefault("access_log", False)
    options.setdefault("lifespan", "off")
    options.setdefault("timeout_graceful_shutdown", 1)
    options.setdefault("timeout_keep_alive", 30)
    options.setdefault("server_header", False)
    return uvicorn.Config(app, **options)


class ServerThread:
    """An ASGI app served by uvicorn on a daemon thread, bound to 127.0.0.1 only."""

    def __init__(self, app: Any, port: int = 0, *, name: str = "subagent-tck server") -> None:
        self._socket = bind(LOOPBACK, port)
        self.port: int = self._socket.getsockname()[1]
        self.url = f"http://{LOOPBACK}:{self.port}"
        self._server = uvicorn.Server(uvicorn_config(app))
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            self._server.run(sockets=[self._socket])
        except BaseException as exc:  # reported by start()
            self._error = exc

    def start(self, timeout: float = 10.0) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise TckError(ErrorCode.USAGE, f"the loopback server could not start: "
                               f"{self._error!r}")
            if time.monotonic() > deadline:
                raise TckError(ErrorCode.TIMEOUT,
                               f"the loopback server did not start within {timeout} s")
            time.sleep(0.002)
        return self

    def stop(self, timeout: float = 3.0) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(timeout)
        self._socket.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


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


async def run_blocking(function: Callable[[], T], timeout: float | None = None) -> T:
    """Run ``function`` on a daemon worker thread and await it (``timeout``: asyncio's
    TimeoutError). A call that never returns keeps nothing alive at exit."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def work() -> None:
        try:
            result = function()
        except BaseException as exc:  # handed to the awaiting handler
            error = exc
            _post(loop, lambda: settle(lambda: future.set_exception(error)))
        else:
            _post(loop, lambda: settle(lambda: future.set_result(result)))

    _WORKERS.submit(work)
    if timeout is None:
        return await future
    return await asyncio.wait_for(future, timeout)


def _post(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    # RuntimeError: the loop is gone (server stopped): nobody waits any more
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback)
