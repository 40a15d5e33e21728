"""opencode's event stream, followed for one fact: when it has taken in an MCP server's new tool
list (docs/opencode.md#tool-list-taken-in).

opencode 1.18.33 answers a server's ``notifications/tools/list_changed`` by listing the server's
tools, storing the answer as the server's tools (what the next model request is composed from)
and then publishing ``mcp.tools.changed`` with the server's name on its bus, which ``GET /event``
streams as server-sent events. The server having answered is not enough: the next request of a
turn that is still running can be composed in between (seen on the wire: the event came up to
half a second after the answer). :class:`ToolEvents` counts the events per server; a change
waits until the count passed what it was before the change was written.

``POST /instance/dispose`` ends the stream when opencode had an instance to dispose (and only
then); :meth:`ToolEvents.reconnect` opens a new one either way and waits until opencode said
``server.connected`` on it, so no change written after the dispose is missed (an event both
streams carry is counted once, by its id).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable

import httpx

#: The event opencode publishes once a server's new tool list is stored.
TOOLS_CHANGED = "mcp.tools.changed"
CONNECTED = "server.connected"
#: How long a stream may take to say it is connected, in seconds.
CONNECT = 10.0


class ToolEvents:
    """``mcp.tools.changed`` events of one ``opencode serve``, counted per server."""

    def __init__(self, url: str, alive: Callable[[], bool]) -> None:
        self._url, self._alive = url, alive
        self._counts: Counter[str] = Counter()
        self._seen: set[str] = set()  # event ids: two streams may overlap after a dispose
        self._changed = threading.Condition()
        self._stream = 0  # the stream followed now; an older one's thread ends with it
        self._live = False  # the stream followed now said it is connected
        self._closed = threading.Event()
        self._client = httpx.Client(base_url=url, trust_env=False,
                                    timeout=httpx.Timeout(10.0, read=None))
        self._follow(0)

    def reconnect(self) -> bool:
        """Follow a new stream (after a dispose) and wait until it said it is connected (at
        most :data:`CONNECT` seconds). A dispose ends the old stream only when opencode had an
        instance to dispose; a new one is opened either way."""
        with self._changed:
            self._stream += 1
            self._live = False
            self._follow(self._stream)
        return self._connected()

    def mark(self) -> Counter[str]:
        """The counts now, for :meth:`wait`, once a stream is connected (at most
        :data:`CONNECT` seconds: without one, a change is not seen and its wait runs out)."""
        self._connected()
        with self._changed:
            return Counter(self._counts)

    def wait(self, servers: set[str], mark: Counter[str], timeout: float) -> bool:
        """True once every server in ``servers`` published a change since ``mark``; False
        after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            return self._changed.wait_for(
                lambda: all(self._counts[s] > mark[s] for s in servers),
                max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        self._closed.set()
        self._client.close()
        with self._changed:
            self._changed.notify_all()

    def _connected(self) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._live or self._closed.is_set(),
                                          CONNECT) and not self._closed.is_set()

    def _follow(self, stream: int) -> None:
        threading.Thread(target=self._run, args=(stream,), name="opencode events",
                         daemon=True).start()

    def _current(self, stream: int) -> bool:
        with self._changed:
            return stream == self._stream

    def _run(self, stream: int) -> None:
        while not self._closed.is_set() and self._alive() and self._current(stream):
            with contextlib.suppress(httpx.HTTPError, RuntimeError), \
                    self._client.stream("GET", "/event") as answer:
                for line in answer.iter_lines():
                    self._take(line, stream)
            with self._changed:
                if stream == self._stream:
                    self._live = False
            self._closed.wait(0.05)  # ended by a dispose: open the next one at once

    def _take(self, line: str, stream: int) -> None:
        if not line.startswith("data:"):
            return
        try:
            event = json.loads(line[5:])
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        kind, properties = event.get("type"), event.get("properties")
        with self._changed:
            if kind == CONNECTED:
                if stream != self._stream:
                    return
                self._live = True
            elif kind == TOOLS_CHANGED and isinstance(properties, dict):
                ident = event.get("id")
                if isinstance(ident, str):
                    if ident in self._seen:
                        return
                    self._seen.add(ident)
                self._counts[str(properties.get("server"))] += 1
            else:
                return
            self._changed.notify_all()
