"""The opencode adapter waits for opencode to take a changed tool list in
(docs/opencode.md#tool-list-taken-in): a stand-in for ``GET /event`` on 127.0.0.1 says
``server.connected``, then ``mcp.tools.changed`` when the test tells it to, and ends the stream
when told (as ``POST /instance/dispose`` does)."""

from __future__ import annotations

import http.server
import json
import queue
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "opencode"))

from opencode_adapter.events import ToolEvents

END = object()


class Stream:
    """The stand-in: each GET /event says it is connected, then sends what :meth:`say` is
    given until :meth:`end`."""

    def __init__(self) -> None:
        self.lines: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.connections = 0
        self.said = 0
        stream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                stream.connections += 1
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                self.send(json.dumps({"type": "server.connected", "properties": {}}))
                while (line := stream.lines.get()) is not END:
                    self.send(str(line))

            def send(self, data: str) -> None:
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def say(self, server: str, ident: str | None = None) -> None:
        self.said += 1
        self.lines.put(json.dumps({"id": ident or f"evt_{self.said}", "type": "mcp.tools.changed",
                                   "properties": {"server": server}}))

    def end(self) -> None:
        self.lines.put(END)


@pytest.fixture
def stream() -> Iterator[Stream]:
    made = Stream()
    yield made
    made.end()
    made.server.shutdown()


def test_a_change_is_taken_in_only_once_opencode_said_so_for_its_server(stream: Stream) -> None:
    events = ToolEvents(stream.url, lambda: True)
    try:
        mark = events.mark()
        assert not events.wait({"tck"}, mark, 0.3)  # listed, not yet stored: not taken in
        stream.say("other")
        assert not events.wait({"tck"}, mark, 0.3)  # another server's change is not this one
        stream.say("tck")
        assert events.wait({"tck"}, mark, 5)
        assert not events.wait({"tck"}, events.mark(), 0.3)  # each change waits for its own
    finally:
        events.close()


def test_after_a_dispose_a_new_stream_is_followed_before_the_next_change(
        stream: Stream) -> None:
    events = ToolEvents(stream.url, lambda: True)
    try:
        events.mark()
        stream.end()  # the dispose
        began = time.monotonic()
        assert events.reconnect()  # a new stream, connected
        assert time.monotonic() - began < 5 and stream.connections >= 2
        mark = events.mark()
        stream.say("tck")
        assert events.wait({"tck"}, mark, 5)
        again = events.mark()
        stream.say("tck", ident=f"evt_{stream.said}")  # the same event on an overlapping stream
        assert not events.wait({"tck"}, again, 0.3)  # counted once
    finally:
        events.close()


def test_without_a_stream_a_change_is_not_taken_in_and_the_wait_runs_out() -> None:
    events = ToolEvents("http://127.0.0.1:9", lambda: True)  # nothing listens there
    try:
        began = time.monotonic()
        assert not events.wait({"tck"}, {"tck": 0}, 0.3)  # type: ignore[arg-type]
        assert time.monotonic() - began < 2
    finally:
        events.close()
