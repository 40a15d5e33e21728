"""The loopback HTTP/1.1 server (conformance/transports/httpd.py), spoken to with raw sockets."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from subagent_tck.conformance.transports.httpd import (
    MAX_HEAD,
    Answer,
    HttpServer,
    Request,
    ServerThread,
)

LIMIT = 1000  # the body limit of the servers under test


class Echo:
    """Answers what it read; ``/wait`` blocks until ``release`` is set; ``/crash`` raises."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def handle(self, request: Request) -> Answer:
        if request.path == "/wait":
            self.release.wait(10)
        if request.path == "/crash":
            raise ZeroDivisionError("a bug in the app")
        seen = {"method": request.method, "target": request.target,
                "segments": request.segments(), "body": request.body.decode(),
                "headers": request.headers}
        return Answer(200, json.dumps(seen).encode(), headers=(("x-app", "echo"),))

    def refuse(self, status: int, message: str) -> Answer:
        return Answer(status, json.dumps({"refused": message}).encode())


@pytest.fixture
def app() -> Echo:
    return Echo()


@pytest.fixture
def server(app: Echo) -> Iterator[HttpServer]:
    with ServerThread(app, max_body=LIMIT, idle_timeout=2.0) as served:
        yield served
    app.release.set()


def connect(server: HttpServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    return sock


def read_answer(sock: socket.socket, buffer: bytearray) -> tuple[int, dict[str, str], bytes]:
    """One answer with a Content-Length from ``sock`` (``buffer``: bytes already read)."""
    while b"\r\n\r\n" not in buffer:
        data = sock.recv(65536)
        assert data, f"closed before a whole head: {bytes(buffer)!r}"
        buffer += data
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers.get("content-length", 0))
    while len(rest) < length:
        data = sock.recv(65536)
        assert data, "closed before the whole body"
        rest += data
    buffer[:] = rest[length:]
    return status, headers, rest[:length]


def closed(sock: socket.socket, within: float = 4.0) -> bool:
    """True once the peer closed (what it still sends is read and dropped)."""
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def post(path: str, body: bytes = b"{}", extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
            ).encode() + body


def test_a_kept_connection_answers_request_after_request(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    for n in range(3):
        sock.sendall(post(f"/n/{n}", b'{"n": %d}' % n))
        status, headers, body = read_answer(sock, buffer)
        assert status == 200 and headers["x-app"] == "echo"
        assert json.loads(body)["body"] == f'{{"n": {n}}}'
    sock.close()


def test_pipelined_requests_are_answered_in_order(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(post("/first") + post("/second") + post("/third"))
    targets = [json.loads(read_answer(sock, buffer)[2])["target"] for _ in range(3)]
    assert targets == ["/first", "/second", "/third"]
    sock.close()


def test_a_chunked_body_is_read_whole(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(b"POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                 b"3\r\n{\"a\r\n5\r\n\": 1}\r\n0\r\n\r\n")
    assert json.loads(read_answer(sock, buffer)[2])["body"] == '{"a": 1}'
    sock.close()


def test_expect_100_continue_is_answered_before_the_body_is_sent(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(b"POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                 b"Expect: 100-continue\r\n\r\n")
    assert read_answer(sock, buffer)[0] == 100
    sock.sendall(b"{}")
    status, _, body = read_answer(sock, buffer)
    assert status == 200 and json.loads(body)["body"] == "{}"
    sock.close()


def test_an_http_1_0_request_is_answered_and_the_connection_closed(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(b"POST /old HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}")
    status, headers, _ = read_answer(sock, buffer)
    assert status == 200 and headers["connection"] == "close"
    assert closed(sock)


def test_header_names_are_lower_case_and_repeated_headers_joined(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(post("/h", extra="X-Thing: a\r\nx-thing: b\r\nContent-Type: text/plain\r\n"))
    headers = json.loads(read_answer(sock, buffer)[2])["headers"]
    assert headers["x-thing"] == "a, b" and headers["content-type"] == "text/plain"
    sock.close()


def test_path_segments_are_decoded_after_the_path_is_split(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(post("/d/a%2Fb/%41?q=1"))
    seen = json.loads(read_answer(sock, buffer)[2])
    assert seen["segments"] == ["d", "a/b", "A"] and seen["target"] == "/d/a%2Fb/%41?q=1"
    sock.close()


def test_a_head_request_is_answered_without_a_body(server: HttpServer) -> None:
    sock = connect(server)
    sock.sendall(b"HEAD /x HTTP/1.1\r\nHost: x\r\n\r\n" + post("/after"))
    time.sleep(0.2)
    data = sock.recv(65536)
    while data.count(b"HTTP/1.1 200") < 2:
        data += sock.recv(65536)
    first, second = data.split(b"HTTP/1.1 200")[1:3]
    assert first.endswith(b"\r\n\r\n") and b"content-length: " in first  # no body follows
    assert b'"target": "/after"' in second
    sock.close()


def test_a_body_announced_over_the_limit_is_refused_before_it_is_sent(
    server: HttpServer,
) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(b"POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (LIMIT + 1))
    status, headers, body = read_answer(sock, buffer)
    assert status == 413 and str(LIMIT) in json.loads(body)["refused"]
    assert headers["connection"] == "close" and closed(sock)


def test_a_client_that_writes_a_large_body_before_reading_still_reads_the_refusal(
    server: HttpServer,
) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(post("/big", b"9" * (1 << 22)))  # more than the socket buffers hold
    assert read_answer(sock, buffer)[0] == 413
    sock.close()


def test_a_chunked_body_growing_past_the_limit_is_refused(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    chunk = b"%x\r\n%s\r\n" % (LIMIT // 2 + 1, b"x" * (LIMIT // 2 + 1))
    sock.sendall(b"POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk * 2)
    assert read_answer(sock, buffer)[0] == 413
    assert closed(sock)


def test_a_head_over_the_limit_is_refused_with_431(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(b"GET / HTTP/1.1\r\nX-Long: " + b"a" * (MAX_HEAD + 10) + b"\r\n\r\n")
    assert read_answer(sock, buffer)[0] == 431
    assert closed(sock)


def test_bytes_that_are_not_http_are_refused_with_400(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(b"\x00\x01 garbage\r\n\r\n")
    status, _, body = read_answer(sock, buffer)
    assert status == 400 and "not HTTP" in json.loads(body)["refused"]
    assert closed(sock)


def test_a_crash_of_the_app_is_a_500_and_the_connection_is_closed(server: HttpServer) -> None:
    sock, buffer = connect(server), bytearray()
    sock.sendall(post("/crash"))
    status, _, body = read_answer(sock, buffer)
    assert status == 500 and "a bug in the app" in json.loads(body)["refused"]
    assert closed(sock)


def test_a_call_that_waits_holds_only_its_own_connection(
    server: HttpServer, app: Echo
) -> None:
    waiting, other = connect(server), connect(server)
    waiting.sendall(post("/wait"))
    time.sleep(0.1)
    began = time.monotonic()
    other.sendall(post("/meanwhile"))
    assert read_answer(other, bytearray())[0] == 200
    assert time.monotonic() - began < 1
    app.release.set()
    assert read_answer(waiting, bytearray())[0] == 200
    waiting.close()
    other.close()


def test_an_idle_connection_is_closed_after_the_idle_timeout(app: Echo) -> None:
    with ServerThread(app, idle_timeout=0.3) as served:
        sock = connect(served)
        began = time.monotonic()
        assert closed(sock, within=3)
        assert 0.2 < time.monotonic() - began < 3


def test_stop_closes_every_connection_and_the_listener(app: Echo) -> None:
    served = ServerThread(app).start()
    sock = connect(served)
    sock.sendall(post("/x"))
    assert read_answer(sock, bytearray())[0] == 200
    began = time.monotonic()
    served.stop()
    assert time.monotonic() - began < 2
    assert closed(sock, within=2)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", served.port), timeout=1)


def test_the_server_listens_on_loopback_only(server: HttpServer) -> None:
    assert server.url == f"http://127.0.0.1:{server.port}"
