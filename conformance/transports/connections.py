"""Persistent HTTP/1.1 connections to one origin: the kit's driver client (:mod:`.http_target`)
and the reference server's model client (:mod:`.gateway_server`).

A certification sends thousands of small requests to one adapter, one at a time; the kit's cost
per round trip is then the client's own CPU. Here a request is one ``sendall`` on a kept socket
and the answer is parsed by httptools (llhttp, in C): a tenth of the CPU ``http.client`` spends
on its header parsing (benchmarks/bench_http.py measures the round trip against a bare echo).
A reader polls for its answer for a fraction of a millisecond before it sleeps
(:mod:`.busypoll`: on a virtual machine a sleeping CPU takes longer to wake than the round trip).
This module keeps such connections, one per concurrent caller, and reports how an exchange
failed with its own exceptions; :class:`~.http_target.HttpTarget` turns them into the kit's
errors (docs/architecture.md).
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Mapping
from urllib.parse import urlsplit

import httptools

from .busypoll import BusyPoll
from .loopback import ssl_context

CHUNK = 64 * 1024


class ExchangeError(Exception):
    """An exchange that did not end with a whole answer (the subclasses say how)."""


class BodyTooLarge(ExchangeError):
    """The answer announced or sent more than the limit; ``announced``: its Content-Length."""

    def __init__(self, announced: int | None) -> None:
        super().__init__(announced)
        self.announced = announced


class Unreachable(ExchangeError):
    """No connection could be opened; ``error``: the OSError that connecting raised."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class Overrun(ExchangeError):
    """The answer kept coming past the deadline."""


class NotHttp(ExchangeError):
    """The peer answered with bytes that are not an HTTP/1.x response (the message says why)."""


class Cut(ExchangeError):
    """The connection closed before the answer was whole; ``received``: how many bytes of the
    answer had arrived (0: the peer closed without answering)."""

    def __init__(self, received: int, body: int) -> None:
        super().__init__(received)
        self.received = received
        self.body = body


class _Kept:
    """One open connection and its answer parser, which is also httptools' callback object.
    The parser is kept from one answer to the next (llhttp reads message after message on a
    kept connection); a connection whose exchange failed is closed, never reused."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.parser = httptools.HttpResponseParser(self)
        self.poll = BusyPoll(sock)
        self._begin()

    def _begin(self) -> None:
        """Before an answer (and after an interim one)."""
        self.body = bytearray()
        self.length: int | None = None
        self.chunked = False
        self.head = False  # the head is read whole
        self.done = False
        self.status = 0
        self.keep_alive = False
        self.stray = False  # a message began after the answer: the connection is not reused

    # --- httptools callbacks ---------------------------------------------------------

    def on_message_begin(self) -> None:
        self.stray = self.done

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.done:
            return
        key = name.lower()
        if key == b"content-length" and value.strip().isdigit():
            self.length = int(value)
        elif key == b"transfer-encoding" and b"chunked" in value.lower():
            self.chunked = True

    def on_headers_complete(self) -> None:
        if not self.done:
            self.head = True
            self.status = self.parser.get_status_code()

    def on_body(self, body: bytes) -> None:
        if not self.done:
            self.body += body

    def on_message_complete(self) -> None:
        if self.done:
            return
        status = self.parser.get_status_code()
        if 100 <= status < 200:
            self._begin()  # an interim answer (100 Continue): the answer follows
        else:  # read here: the parser forgets both once the message is over
            self.status, self.keep_alive = status, self.parser.should_keep_alive()
            self.done = True

    # --- reading an answer -----------------------------------------------------------

    def read(self, limit: int, deadline: float) -> tuple[int, bytes, bool]:
        """Read one answer: ``(status, body, whether the connection may be reused)``."""
        self._begin()
        received = 0
        self.poll.wait()  # the answer usually comes within a fraction of a millisecond
        while True:
            data = self.sock.recv(CHUNK)
            if not data:  # closed: the end of a body without a length, or a cut answer
                if self.head and self.length is None and not self.chunked:
                    return self.status, bytes(self.body), False
                raise Cut(received, len(self.body))
            received += len(data)
            try:
                self.parser.feed_data(data)
            except httptools.HttpParserUpgrade:
                raise NotHttp("it switched protocols (an Upgrade answer)") from None
            except httptools.HttpParserError as exc:
                raise NotHttp(str(exc) or type(exc).__name__) from None
            if self.length is not None and self.length > limit:
                raise BodyTooLarge(self.length)
            if len(self.body) > limit:
                raise BodyTooLarge(None)
            if self.done:
                return self.status, bytes(self.body), self.keep_alive and not self.stray
            if time.monotonic() > deadline:
                raise Overrun()

    def close(self) -> None:
        self.sock.close()


class Connections:
    """Kept connections to ``base_url`` (``http://`` or ``https://``), every request carrying
    ``headers``. Thread-safe: a caller takes an idle connection or opens one, and gives it back
    once its answer is read whole."""

    def __init__(self, base_url: str, *, connect_timeout: float, timeout: float,
                 headers: Mapping[str, str] | None = None) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{base_url} is not an http:// or https:// URL")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        authority = parts.netloc.rsplit("@", 1)[-1]
        # the head after the request line, but for the length: written once
        self._fixed = f"Host: {authority}\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        self._idle: list[_Kept] = []
        self._lock = threading.Lock()
        self._closed = False

    def _open(self) -> _Kept:
        try:
            sock = socket.create_connection((self.host, self.port), self.connect_timeout)
        except TimeoutError:
            raise
        except OSError as exc:
            raise Unreachable(exc) from exc
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.https:
                sock = ssl_context().wrap_socket(sock, server_hostname=self.host)
            sock.settimeout(self.timeout)
        except BaseException:
            sock.close()
            raise
        return _Kept(sock)

    def _take(self) -> _Kept:
        while True:
            with self._lock:
                kept = self._idle.pop() if self._idle else None
            if kept is None:
                return self._open()
            if _usable(kept.sock):
                return kept
            kept.close()

    def _give_back(self, kept: _Kept) -> None:
        with self._lock:
            if not self._closed:
                self._idle.append(kept)
                return
        kept.close()

    def exchange(self, method: str, path: str, body: bytes | None, *, limit: int,
                 deadline: float) -> tuple[int, bytes]:
        """Send one request and read its whole answer: ``(status, body)``.

        Raises what the socket raises (TimeoutError when a read waits longer than ``timeout``,
        OSError), :class:`Unreachable` when no connection opens, :class:`BodyTooLarge` past
        ``limit`` bytes, :class:`Overrun` when the body is still arriving at ``deadline``
        (``time.monotonic``), :class:`NotHttp` for bytes that are not an HTTP answer and
        :class:`Cut` when the connection closes first.
        """
        content = body or b""
        message = (f"{method} {self.prefix}{path} HTTP/1.1\r\n{self._fixed}"
                   f"Content-Length: {len(content)}\r\n\r\n").encode("latin-1") + content
        kept = self._take()
        reusable = False
        try:
            kept.sock.sendall(message)
            status, data, reusable = kept.read(limit, deadline)
            return status, data
        finally:
            if reusable:
                self._give_back(kept)
            else:
                kept.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for kept in idle:
            kept.close()


def _usable(sock: socket.socket) -> bool:
    """An idle kept connection may be reused while the peer has sent nothing on it: readable
    means closed (or stray bytes), and a request sent then would be lost."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable
