"""A small HTTP/1.1 server for the loopback transport: a thread per connection, httptools' parser.

The driver API server (:mod:`.http_server`) and the kit's model gateway (:mod:`.gateway_server`)
answer thousands of small requests, one at a time, on kept connections; a certification over
HTTP costs what each round trip costs. Here a connection's own thread reads a request, calls the
app and writes the answer as one segment: no event loop, no thread switch between reading and
answering, and a call that waits (a run waiting for the model) holds only its own connection, so
the calls a scripted reply makes meanwhile arrive on another connection and are answered at once
(docs/architecture.md). Between requests a connection's thread polls for
a fraction of a millisecond before it sleeps (:mod:`.busypoll`). It took the place of uvicorn
and Starlette: a bare echo's round trip went from about 0.3 ms to 0.03 ms on the same machine,
and benchmarks/bench_http.py measures the driver against such an echo.

HTTP is parsed by httptools (llhttp, the parser of Node.js and of uvicorn): chunked and
``Content-Length`` bodies, ``Expect: 100-continue``, pipelined requests, HTTP/1.0 and
``Connection: close``. What a well-behaved client never sends is refused, with the app's own
error body, and the connection closed: a head over 64 KiB (431), a body over the limit (413,
refused as soon as its length is announced), bytes that are not HTTP (400). An idle kept
connection is closed after ``idle_timeout`` seconds; a connection beyond ``max_connections`` open
at once is answered 503 and closed (never a thread more). :func:`foreign` tells a request a web
page sent (an ``Origin`` not the server's own, a ``Host`` off loopback: docs/driver-api.md,
"Security and processes"). Nothing here keeps the interpreter alive:
every thread is a daemon, and ``stop`` closes the listener and every open connection
(docs/architecture.md).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from http import HTTPStatus
from typing import NamedTuple, Protocol
from urllib.parse import unquote

import httptools

from .busypoll import BusyPoll
from .loopback import LOOPBACK, bind, is_loopback_host
from .wire import MAX_BODY

#: The largest request line plus headers a server reads.
MAX_HEAD = 64 * 1024
IDLE_TIMEOUT = 30.0
#: Connections a server serves at once; one more is answered 503 and closed. Real runtimes open
#: a connection pool per agent and keep it until the idle timeout (DSH's model client opens more
#: than 128 within 30 s of a certification), so the bound is there against floods, not to be met.
MAX_CONNECTIONS = 1024
CHUNK = 64 * 1024
#: After a refusal the rest of the request is read and dropped for this long (and at most this
#: many bytes), so that a client still writing reads the answer instead of a reset connection.
LINGER = 2.0
LINGER_BYTES = 64 * 1024 * 1024

_REASONS = {status.value: status.phrase for status in HTTPStatus}


class Request:
    """One request as read: ``target`` is the raw request target (path and query, still
    percent-encoded); ``headers`` maps lower-case names to values (repeated headers joined with
    ``, ``), decoded when first asked for."""

    __slots__ = ("_headers", "_raw", "body", "keep_alive", "method", "target", "version")

    def __init__(self, method: str, target: str, body: bytes = b"",
                 raw_headers: list[tuple[bytes, bytes]] | None = None, version: str = "1.1",
                 keep_alive: bool = True) -> None:
        self.method = method
        self.target = target
        self.body = body
        self.version = version
        self.keep_alive = keep_alive
        self._raw = raw_headers or []
        self._headers: dict[str, str] | None = None

    @property
    def headers(self) -> dict[str, str]:
        if self._headers is None:
            self._headers = {}
            for name, value in self._raw:
                key, text = name.decode("latin-1").lower(), value.decode("latin-1")
                known = self._headers.get(key)
                self._headers[key] = text if known is None else f"{known}, {text}"
        return self._headers

    @property
    def path(self) -> str:
        """The path, still percent-encoded (split it before decoding its segments)."""
        return self.target.split("?", 1)[0]

    def segments(self) -> list[str]:
        """The decoded segments of the path: ``/v1/a%2Fb`` -> ``["v1", "a/b"]``."""
        parts = self.path.split("/")[1:]
        return [unquote(part) for part in parts] if "%" in self.target else parts


def _host_name(authority: str) -> str:
    """The host of a ``Host``/``Origin`` authority (``[::1]:80`` -> ``::1``)."""
    if authority.startswith("["):
        return authority[1:].split("]", 1)[0]
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


def foreign(request: Request, *, any_host: bool = False) -> str | None:
    """Why ``request`` looks sent by a web page rather than a client of the API, or None.

    A browser names the page's origin in ``Origin``: anything but this server's own origin
    (``http://`` + the ``Host`` header) is a cross-origin page. A ``Host`` that is not a
    loopback name is a DNS-rebinding page (its name resolved to 127.0.0.1), unless ``any_host``
    (a server bound off loopback on purpose)."""
    headers = request.headers
    host = headers.get("host", "").strip()
    if host and not any_host and not is_loopback_host(_host_name(host)):
        return (f"the Host header {host[:100]!r} is not a loopback name: this server answers "
                "requests to 127.0.0.1, ::1 or localhost only (a web page must not drive it)")
    origin = headers.get("origin")
    if origin is not None and origin.strip().lower() not in (f"http://{host}".lower(),
                                                              f"https://{host}".lower()):
        return (f"the request comes from the web origin {origin[:100]!r}: this server does not "
                "answer requests a web page sends (send no Origin header)")
    return None


class Answer(NamedTuple):
    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()


class _Refusal(NamedTuple):
    status: int
    message: str


class App(Protocol):
    """What a server serves: ``handle`` answers a request (and never raises: a crash is the
    app's own 500); ``refuse`` is the answer to a request the server itself refuses."""

    def handle(self, request: Request) -> Answer: ...

    def refuse(self, status: int, message: str) -> Answer: ...


def encode(answer: Answer, *, keep_alive: bool, head_only: bool = False,
           version: str = "1.1") -> bytes:
    """An answer as the bytes of one HTTP/1.1 response."""
    key = (answer.status, answer.content_type, answer.headers)
    start = _STARTS.get(key)
    if start is None:  # the status line and fixed headers of such answers, made once
        lines = [f"HTTP/1.1 {answer.status} {_REASONS.get(answer.status, '')}",
                 f"content-type: {answer.content_type}"]
        lines += [f"{name}: {value}" for name, value in answer.headers]
        start = ("\r\n".join(lines) + "\r\n").encode("latin-1")
        if len(_STARTS) < 1024:
            _STARTS[key] = start
    end = (b"\r\n" if keep_alive and version != "1.0" else
           b"connection: keep-alive\r\n\r\n" if keep_alive else b"connection: close\r\n\r\n")
    head = b"%scontent-length: %d\r\n%s" % (start, len(answer.body), end)
    return head if head_only else head + answer.body


_STARTS: dict[tuple[int, str, tuple[tuple[str, str], ...]], bytes] = {}


class _Connection:
    """One accepted connection, served by its own thread; also httptools' callback object."""

    def __init__(self, server: HttpServer, sock: socket.socket) -> None:
        self.server = server
        self.sock = sock
        self.parser = httptools.HttpRequestParser(self)
        self.ready: list[Request | _Refusal] = []  # what the last read completed, in order
        self.refusal: _Refusal | None = None  # the message being read is refused
        self.poll = BusyPoll(sock)
        self._begin()

    def _begin(self) -> None:
        self.url = bytearray()
        self.headers: list[tuple[bytes, bytes]] = []
        self.length = b""  # the Content-Length announced
        self.expect = b""
        self.body = bytearray()
        self.head_size = 0

    # --- httptools callbacks ---------------------------------------------------------

    def on_message_begin(self) -> None:
        self._begin()

    def on_url(self, url: bytes) -> None:
        self.url += url
        self._count(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))
        if len(name) == 14 and name.lower() == b"content-length":
            self.length = value.strip()
        elif len(name) == 6 and name.lower() == b"expect":
            self.expect = value.strip().lower()
        self._count(len(name) + len(value) + 4)

    def _count(self, size: int) -> None:
        self.head_size += size
        if self.head_size > MAX_HEAD and self.refusal is None:
            self.refusal = _Refusal(431, "the request line and headers are larger than "
                                         f"{MAX_HEAD} bytes")

    def on_headers_complete(self) -> None:
        if self.length.isdigit() and int(self.length) > self.server.max_body:
            self.refusal = self.refusal or self._too_large()
        elif (self.refusal is None and self.expect == b"100-continue"
              and self.parser.get_http_version() == "1.1"):
            self.sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        if self.refusal is not None:
            return
        self.body += body
        if len(self.body) > self.server.max_body:
            self.refusal = self._too_large()

    def on_message_complete(self) -> None:
        if self.refusal is not None:
            self.ready.append(self.refusal)
            self.refusal = None
            return
        self.ready.append(Request(self.parser.get_method().decode("latin-1"),
                                  self.url.decode("latin-1"), bytes(self.body), self.headers,
                                  self.parser.get_http_version(),
                                  self.parser.should_keep_alive()))

    def _too_large(self) -> _Refusal:
        return _Refusal(413, f"the request body is larger than {self.server.max_body} bytes")

    # --- serving ---------------------------------------------------------------------

    def serve(self) -> None:
        try:
            self.sock.settimeout(self.server.idle_timeout)
            while self._round():
                pass
        except OSError:  # the client went away, or the server is stopping
            pass
        finally:
            self.server._forget(self.sock)
            self.sock.close()

    def _round(self) -> bool:
        """Read what arrived and answer every request it completed; False: close."""
        self.poll.wait()  # a client in a hurry sends its next request at once
        data = self.sock.recv(CHUNK)
        if not data:
            return False
        upgraded = False
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:  # answered as a plain request, then closed
            upgraded = True
        except httptools.HttpParserError as exc:
            self.ready.append(_Refusal(400, f"the request is not HTTP/1.1: {exc}"))
        ready, self.ready = self.ready, []
        for item in ready:
            if isinstance(item, _Refusal):  # answered, then the connection is closed
                self._refuse(item)
                return False
            if not self._answer(item, item.keep_alive and not upgraded):
                return False
        if self.refusal is not None:  # refused before the request is read whole
            self._refuse(self.refusal)
            return False
        return not upgraded

    def _answer(self, request: Request, keep_alive: bool) -> bool:
        try:
            answer = self.server.app.handle(request)
        except Exception as exc:  # the app is meant to answer its crashes itself
            answer = self.server.app.refuse(500, f"the server crashed: {type(exc).__name__}: "
                                                 f"{exc}")
            keep_alive = False
        self.sock.sendall(encode(answer, keep_alive=keep_alive, version=request.version,
                                 head_only=request.method == "HEAD"))
        return keep_alive

    def _refuse(self, refusal: _Refusal) -> None:
        """Answer a refused request, then read and drop what the client still sends for a
        moment, so that it reads the answer rather than a reset (a "lingering close")."""
        answer = self.server.app.refuse(refusal.status, refusal.message)
        self.sock.sendall(encode(answer, keep_alive=False))
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + LINGER
            budget = LINGER_BYTES
            while budget > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.sock.settimeout(left)
                data = self.sock.recv(CHUNK)
                if not data:
                    break
                budget -= len(data)


class HttpServer:
    """Serves ``app`` on a listening socket (default: a free port of 127.0.0.1).

    ``serve_forever`` serves in the calling thread until ``stop`` (or an exception such as
    KeyboardInterrupt); ``start`` serves on a daemon thread. The socket listens from the
    constructor on, so a client may connect at once.
    """

    def __init__(self, app: App, sock: socket.socket | None = None, *, port: int = 0,
                 name: str = "subagent-tck server", idle_timeout: float = IDLE_TIMEOUT,
                 max_body: int = MAX_BODY, max_connections: int = MAX_CONNECTIONS) -> None:
        self.app = app
        self.socket = sock if sock is not None else bind(LOOPBACK, port)
        self.port: int = self.socket.getsockname()[1]
        host = self.socket.getsockname()[0]
        self.url = f"http://{f'[{host}]' if ':' in host else host}:{self.port}"
        self.name = name
        self.idle_timeout = idle_timeout
        self.max_body = max_body
        self.max_connections = max_connections
        self.refused = 0  # connections answered 503: over max_connections
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        self.socket.settimeout(0.5)  # stop() is noticed within half a second at worst
        while not self._stopping:
            try:
                sock, _ = self.socket.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stopping:
                    return
                raise
            with self._lock:
                if self._stopping:
                    sock.close()
                    return
                full = len(self._open) >= self.max_connections
                if not full:
                    self._open.add(sock)
            if full:
                self._turn_away(sock)
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=_Connection(self, sock).serve, daemon=True,
                             name=f"{self.name} connection").start()

    def _turn_away(self, sock: socket.socket) -> None:
        """Answer a connection over the limit with 503 and close it (on the accepting thread:
        one small write to a fresh socket's buffer)."""
        self.refused += 1
        answer = self.app.refuse(503, f"too many connections: this server serves at most "
                                      f"{self.max_connections} at once; reuse kept connections")
        with contextlib.suppress(OSError):
            sock.settimeout(1.0)
            sock.sendall(encode(answer, keep_alive=False))
            sock.shutdown(socket.SHUT_WR)
        sock.close()

    def _forget(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)

    def start(self) -> HttpServer:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        with contextlib.suppress(OSError):
            self.serve_forever()

    def stop(self, timeout: float = 3.0) -> None:
        """Stop accepting, close every open connection (a call in progress finishes on its
        daemon thread, its answer dropped) and close the listener."""
        with self._lock:
            self._stopping = True
            connections = list(self._open)
        with contextlib.suppress(OSError):
            self.socket.shutdown(socket.SHUT_RDWR)  # wakes accept() at once on Linux
        for sock in connections:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self.socket.close()


class ServerThread(HttpServer):
    """An app served on a daemon thread of the kit, bound to 127.0.0.1 only (a context
    manager: serving inside the ``with`` block)."""

    def start(self) -> ServerThread:
        super().start()
        return self

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
