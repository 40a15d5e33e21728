"""Kept HTTP/1.1 connections of the kit's clients (conformance/transports/connections.py), against a
scripted peer that answers each request with bytes the test chooses."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from subagent_tck.conformance.transports.connections import (
    BodyTooLarge,
    Connections,
    Cut,
    NotHttp,
    Unreachable,
)
from subagent_tck.conformance.transports.loopback import bind

Script = Callable[[int], "bytes | None"]  # request number -> what to send (None: close)


class Peer:
    """Accepts connections; answers the n-th request (over all connections) with
    ``script(n)``; ``close_after``: close the connection once that answer is sent."""

    def __init__(self, script: Script, close_after: Callable[[int], bool] = lambda n: False
                 ) -> None:
        self.script, self.close_after = script, close_after
        self.sock = bind()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        self.requests: list[bytes] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            buffer = b""
            while True:
                while b"\r\n\r\n" not in buffer:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buffer += data
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                while len(buffer) < length:
                    buffer += conn.recv(65536)
                self.requests.append(head + b"\r\n\r\n" + buffer[:length])
                buffer = buffer[length:]
                number = len(self.requests)
                answer = self.script(number)
                if answer is None:
                    return
                conn.sendall(answer)
                if self.close_after(number):
                    return

    def close(self) -> None:
        self.sock.close()


def ok(body: bytes = b'"ok"', extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n%s\r\n%s" % (len(body), extra, body)


@pytest.fixture
def peer() -> Iterator[Callable[..., tuple[Peer, Connections]]]:
    made: list[tuple[Peer, Connections]] = []

    def make(script: Script, **options: Callable[[int], bool]) -> tuple[Peer, Connections]:
        served = Peer(script, **options)
        made.append((served, Connections(served.url, connect_timeout=2, timeout=2,
                                         headers={"X-Kit": "1"})))
        return made[-1]

    yield make
    for served, connections in made:
        connections.close()
        served.close()


def send(connections: Connections, body: bytes = b"{}", limit: int = 1 << 20) -> tuple[int, bytes]:
    return connections.exchange("POST", "/p", body, limit=limit, deadline=time.monotonic() + 2)


def test_answers_with_a_length_keep_one_connection(peer: Callable[..., Any]) -> None:
    served, connections = peer(lambda n: ok(b'"%d"' % n))
    assert [send(connections) for _ in range(3)] == [(200, b'"1"'), (200, b'"2"'),
                                                      (200, b'"3"')]
    assert served.accepted == 1
    assert served.requests[0].startswith(b"POST /p HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nX-Kit: 1\r\nContent-Length: 2\r\n\r\n{}" in served.requests[0]


def test_a_chunked_answer_is_read_whole(peer: Callable[..., Any]) -> None:
    _, connections = peer(lambda n: b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                                    b"2\r\n[1\r\n1\r\n]\r\n0\r\n\r\n")
    assert send(connections) == (200, b"[1]")
    assert send(connections) == (200, b"[1]")


def test_an_answer_without_a_length_ends_when_the_peer_closes(peer: Callable[..., Any]) -> None:
    served, connections = peer(lambda n: b"HTTP/1.1 200 OK\r\n\r\n[1, 2]",
                               close_after=lambda n: True)
    assert send(connections) == (200, b"[1, 2]")
    assert send(connections) == (200, b"[1, 2]")
    assert served.accepted == 2  # that connection was not kept


def test_an_interim_100_continue_is_skipped(peer: Callable[..., Any]) -> None:
    _, connections = peer(lambda n: b"HTTP/1.1 100 Continue\r\n\r\n" + ok())
    assert send(connections) == (200, b'"ok"')


@pytest.mark.parametrize("answer", [
    ok(extra=b"connection: close\r\n"),  # the peer says it closes
    ok() + b"HTTP/1.1 200 OK\r\n",  # stray bytes after the answer
    b"HTTP/1.0 200 OK\r\ncontent-length: 4\r\n\r\n\"ok\"",  # HTTP/1.0 without keep-alive
])
def test_a_connection_is_not_kept_when_the_answer_says_so_or_bytes_follow_it(
    peer: Callable[..., Any], answer: bytes
) -> None:
    served, connections = peer(lambda n: answer)
    assert send(connections) == (200, b'"ok"')
    assert send(connections) == (200, b'"ok"')
    assert served.accepted == 2


def test_a_kept_connection_the_peer_closed_meanwhile_is_replaced(
    peer: Callable[..., Any],
) -> None:
    served, connections = peer(lambda n: ok(), close_after=lambda n: n == 1)
    assert send(connections) == (200, b'"ok"')
    time.sleep(0.1)  # the close arrives while the connection is idle
    assert send(connections) == (200, b'"ok"')
    assert served.accepted == 2


def test_a_peer_that_closes_without_answering_is_a_cut_with_nothing_received(
    peer: Callable[..., Any],
) -> None:
    _, connections = peer(lambda n: None)
    with pytest.raises(Cut) as caught:
        send(connections)
    assert caught.value.received == 0


def test_an_answer_cut_in_its_body_is_a_cut_saying_how_much_arrived(
    peer: Callable[..., Any],
) -> None:
    _, connections = peer(lambda n: b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n[1, 2",
                          close_after=lambda n: True)
    with pytest.raises(Cut) as caught:
        send(connections)
    assert caught.value.received > 0 and caught.value.body == 5


def test_bytes_that_are_not_http_are_not_http(peer: Callable[..., Any]) -> None:
    _, connections = peer(lambda n: b"\x00\x01garbage that is not HTTP\r\n\r\n")
    with pytest.raises(NotHttp):
        send(connections)


def test_an_announced_length_over_the_limit_is_refused_before_reading(
    peer: Callable[..., Any],
) -> None:
    _, connections = peer(lambda n: b"HTTP/1.1 200 OK\r\ncontent-length: 5000\r\n\r\n")
    with pytest.raises(BodyTooLarge) as caught:
        send(connections, limit=1000)
    assert caught.value.announced == 5000


def test_a_chunked_body_growing_over_the_limit_is_refused(peer: Callable[..., Any]) -> None:
    chunk = b"%x\r\n%s\r\n" % (600, b"x" * 600)
    _, connections = peer(lambda n: b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                                    + chunk * 2)
    with pytest.raises(BodyTooLarge) as caught:
        send(connections, limit=1000)
    assert caught.value.announced is None


def test_a_silent_peer_times_out_and_nothing_listening_is_unreachable(
    peer: Callable[..., Any],
) -> None:
    release = threading.Event()
    _, connections = peer(lambda n: release.wait(5) and None)
    began = time.monotonic()
    with pytest.raises(TimeoutError):
        connections.exchange("POST", "/p", b"{}", limit=100, deadline=time.monotonic() + 2)
    assert time.monotonic() - began < 4
    release.set()
    sock = bind()
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(Unreachable):
        send(Connections(f"http://127.0.0.1:{port}", connect_timeout=1, timeout=1))


def test_a_url_that_is_not_http_is_refused() -> None:
    with pytest.raises(ValueError, match="not an http"):
        Connections("ftp://127.0.0.1:1", connect_timeout=1, timeout=1)
