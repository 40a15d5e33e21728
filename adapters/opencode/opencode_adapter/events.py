"""opencode's event stream, followed for one fact: when it has taken in an MCP server's new tool
list (docs/opencode.md#tool-list-taken-in).

opencode 1.18.33 answers a server's ``notifications/tools/list_changed`` by listing the server's
tools, storing the answer as the server's tools (what the next model request is composed from)
and then publishing ``mcp.tools.changed`` with the server's name on its bus, which ``GET /event``
streams as server-sent events. The server having answered is not enough: the next request of a
turn that is still running can be composed in between (seen on the wire: the event came up to
half a second after the answer). :class:`ToolEvents` counts the events per server; a change
waits until the count passed what it was before the change was written.

``POST /instance/dispose`` ends the stream; it is followed again at once, and
:meth:`ToolEvents.mark` (taken before a change is written) waits until opencode said
``server.connected`` on the stream then open, so no change written after it is missed.
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
#: How long :meth:`ToolEvents.mark` waits for a stream to say it is connected, in seconds.
CONNECT = 10.0


class ToolEvents:
    """``mcp.tools.changed`` events of one ``opencode serve``, counted per server."""

    def __init__(self, url: str, alive: Callable[[], bool]) -> None:
        self._url, self._alive = url, alive
        self._counts: Counter[str] = Counter()
        self._changed = threading.Condition()
        self._live = False  # a stream said it is connected, and has not ended since
        self._closed = threading.Event()
        self._client = httpx.Client(base_url=url, trust_env=False,
                                    timeout=httpx.Timeout(10.0, read=None))
        threading.Thread(target=self._run, name="opencode events", daemon=True).start()

    def restarting(self) -> None:
        """The stream is about to end (a dispose): :meth:`mark` waits for the next one."""
        with self._changed:
            self._live = False

    def mark(self) -> Counter[str]:
        """The counts now, for :meth:`wait`, once a stream is connected (at most
        :data:`CONNECT` seconds: without one, a change is not seen and its wait runs out)."""
        with self._changed:
            self._changed.wait_for(lambda: self._live or self._closed.is_set(), CONNECT)
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

    def _run(self) -> None:
        while not self._closed.is_set() and self._alive():
            with contextlib.suppress(httpx.HTTPError, RuntimeError), \
                    self._client.stream("GET", "/event") as answer:
                for line in answer.iter_lines():
                    self._take(line)
            with self._changed:
                self._live = False
            self._closed.wait(0.05)  # ended by a dispose: open the next one at once

    def _take(self, line: str) -> None:
        if not line.startswith("data:"):
            return
        try:
            event = json.loads(line[5:])
        except ValueError:
            return
        kind = event.get("type") if isinstance(event, dict) else None
        properties = event.get("properties") if isinstance(event, dict) else None
        with self._changed:
            if kind == CONNECTED:
                self._live = True
            elif kind == TOOLS_CHANGED and isinstance(properties, dict):
                self._counts[str(properties.get("server"))] += 1
            else:
                return
            self._changed.notify_all()
