"""Persistent HTTP/1.1 connections to one origin, for the driver's client (:mod:`.http_target`).

A certification sends thousands of small requests to one adapter, one at a time; the kit's cost
per round trip is then the client's own CPU. A kept socket written to directly, with the
standard library's ``http.client`` parsing the answers, costs about half of httpcore's CPU per
request and sends each request as one segment (benchmarks/bench_http.py measures both against a
bare echo). This module keeps such connections, one per concurrent caller, and reports failures
as the standard library raises them; :class:`~.http_target.HttpTarget` turns them into the
kit's errors (DESIGN.md, "No hang").
"""

from __future__ import annotations

import http.client
import select
import socket
import threading
import time
from urllib.parse import urlsplit

from .loopback import ssl_context

CHUNK = 64 * 1024


class BodyTooLarge(Exception):
    """The answer announced or sent more than the limit; ``announced``: its Content-Length."""

    def __init__(self, announced: int | None) -> None:
        super().__init__(announced)
        self.announced = announced


class Unreachable(Exception):
    """No connection could be opened; ``error``: the OSError that connecting raised."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class Overrun(Exception):
    """The answer kept coming past the deadline."""


class _Kept:
    """One open connection: the socket, written to directly (a request is one ``sendall``:
    ``http.client`` sends the headers and the body apart, which wakes the server twice), and
    read with ``http.client``'s response parser."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def close(self) -> None:
        self.sock.close()


class Connections:
    """Kept connections to ``base_url`` (``http://`` or ``https://``). Thread-safe: a caller
    takes an idle connection or opens one, and gives it back once its answer is read whole."""

    def __init__(self, base_url: str, *, connect_timeout: float, timeout: float) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{base_url} is not an http:// or https:// URL")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self._authority = parts.netloc.rsplit("@", 1)[-1]
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
                connection = self._idle.pop() if self._idle else None
            if connection is None:
                return self._open()
            if _usable(connection.sock):
                return connection
            connection.close()

    def _give_back(self, connection: _Kept) -> None:
        with self._lock:
            if not self._closed:
                self._idle.append(connection)
                return
        connection.close()

    def exchange(self, method: str, path: str, headers: dict[str, str], body: bytes | None,
                 *, limit: int, deadline: float) -> tuple[int, bytes]:
        """Send one request and read its whole answer: ``(status, body)``. Raises what
        ``http.client`` and the socket raise, :class:`Unreachable` when no connection opens,
        :class:`BodyTooLarge` past ``limit`` bytes and :class:`Overrun` when the body is still
        arriving at ``deadline`` (``time.monotonic``)."""
        content = body or b""
        head = [f"{method} {self.prefix}{path} HTTP/1.1", f"Host: {self._authority}"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        head.append(f"Content-Length: {len(content)}")
        message = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + content
        connection = self._take()
        reusable = False
        try:
            connection.sock.sendall(message)
            response = http.client.HTTPResponse(connection.sock, method=method)
            try:
                response.begin()
                declared = response.getheader("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise BodyTooLarge(int(declared))
                data = bytearray()
                while chunk := response.read(CHUNK):
                    data += chunk
                    if len(data) > limit:
                        raise BodyTooLarge(None)
                    if time.monotonic() > deadline:
                        raise Overrun()
                reusable = not response.will_close
                return response.status, bytes(data)
            finally:
                response.close()
        finally:
            if reusable:
                self._give_back(connection)
            else:
                connection.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


def _usable(sock: socket.socket) -> bool:
    """An idle kept connection may be reused while the peer has sent nothing on it: readable
    means closed (or stray bytes), and a request sent then would be lost."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable
