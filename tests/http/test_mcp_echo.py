"""The kit's stdio MCP server (conformance/transports/mcp_echo.py), driven as a runtime drives it:
a subprocess started with ``McpTools.command()``, JSON-RPC lines on its stdin and stdout. Its
tool list, its echo bodies, the ``list_changed`` notification, and the adapter's side
(``McpTools``: atomic writes, ``wait_listed``)."""

from __future__ import annotations

import ast
import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from subagent_tck.conformance.transports import mcp_echo
from subagent_tck.conformance.transports.mcp_echo import LIST_CHANGED, McpTools

#: Long enough for the server to answer on a busy machine; a wait that should succeed ends early.
PATIENCE = 10.0
#: How long to watch for a notification that must not come (many polls of the watcher).
QUIET = 0.4


def spec(name: str, description: str = "") -> dict[str, Any]:
    return {"name": name, "description": description or f"tool {name}",
            "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}


class Client:
    """A runtime's end of one server: requests wait for their answer; notifications queue."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self._answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notes: queue.Queue[dict[str, Any]] = queue.Queue()
        self._ids = iter(range(1, 1_000_000))
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            (self._answers if "id" in message else self.notes).put(message)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        ident = next(self._ids)
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}})
        answer = self._answers.get(timeout=PATIENCE)
        assert answer["id"] == ident, answer
        return answer

    def initialize(self) -> dict[str, Any]:
        answer = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                             "clientInfo": {"name": "test", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def listed(self) -> list[str]:
        return [t["name"] for t in self.request("tools/list")["result"]["tools"]]

    def notifications(self, within: float) -> list[dict[str, Any]]:
        """Every notification that arrives within ``within`` seconds."""
        found, deadline = [], time.monotonic() + within
        while (left := deadline - time.monotonic()) > 0:
            try:
                found.append(self.notes.get(timeout=left))
            except queue.Empty:
                break
        return found

    def next_notification(self) -> dict[str, Any]:
        return self.notes.get(timeout=PATIENCE)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def tools(tmp_path: Path) -> McpTools:
    files = McpTools(tmp_path / "mcp")
    files.write([spec("alpha"), spec("beta")])
    return files


@pytest.fixture
def client(tools: McpTools) -> Iterator[Client]:
    started = Client(tools.command())
    yield started
    started.close()


def test_initialize_answers_the_clients_protocol_and_declares_that_the_tool_list_changes(
        client: Client) -> None:
    result = client.initialize()["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["capabilities"] == {"tools": {"listChanged": True}}
    assert client.request("ping")["result"] == {}
    assert client.request("resources/list")["error"]["code"] == -32601


def test_initialize_answers_the_instructions_written_beside_the_tools_and_none_without(
        tools: McpTools) -> None:
    plain = Client(tools.command())
    try:
        assert "instructions" not in plain.initialize()["result"]
    finally:
        plain.close()
    text = "call beta for words; its answers are short.\n\u00e9"
    tools.instruct(text)
    guided = Client(tools.command())
    try:
        assert guided.initialize()["result"]["instructions"] == text
    finally:
        guided.close()


def test_tools_list_answers_the_written_specs_and_each_listing_is_logged_as_status(
        tools: McpTools, client: Client) -> None:
    client.initialize()
    listed = client.request("tools/list")["result"]["tools"]
    assert listed == [{"name": n, "description": f"tool {n}",
                       "inputSchema": spec(n)["parameters"]} for n in ("alpha", "beta")]
    tools.write([spec("gamma")])
    assert client.listed() == ["gamma"]  # re-read on every list
    assert tools.wait_listed({"gamma"}, PATIENCE)  # logged just after the answer
    status = [json.loads(line) for line in tools.status.read_text().splitlines()]
    assert status == [{"initialized": True}, {"listed": ["alpha", "beta"]},
                      {"listed": ["gamma"]}]
    assert not tools.connected_since_write()  # the connection began before the write


def test_a_connection_begun_after_a_write_is_told_apart_from_a_relisting(
        tools: McpTools, client: Client) -> None:
    tools.write([])
    assert not tools.connected_since_write()
    client.initialize()
    # recorded just after the answer (as a listing is): the record may trail the answer
    deadline = time.monotonic() + PATIENCE
    while not tools.connected_since_write() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert tools.connected_since_write()  # its list is the one it starts from
    assert not tools.wait_listed(set(), 0.2)  # begun, not listed: no list of no names yet
    assert client.listed() == []
    assert tools.wait_listed(set(), PATIENCE)


def test_a_server_started_without_a_status_file_writes_none(tmp_path: Path) -> None:
    files = McpTools(tmp_path)
    files.write([spec("alpha")])
    started = Client(files.command()[:-1])  # TOOLS_JSON INVOCATIONS_JSONL only
    try:
        started.initialize()
        assert started.listed() == ["alpha"]
    finally:
        started.close()
    assert not files.status.exists()


def test_a_tool_call_is_recorded_with_its_meta_and_echoed(tools: McpTools, client: Client) -> None:
    client.initialize()
    answer = client.request("tools/call", {"name": "alpha", "arguments": {"x": "1"},
                                           "_meta": {"claudecode/toolUseId": "toolu_1"}})
    assert answer["result"]["isError"] is False
    assert json.loads(answer["result"]["content"][0]["text"]) == {"tool": "alpha",
                                                                  "arguments": {"x": "1"}}
    client.request("tools/call", {"name": "beta"})
    unknown = client.request("tools/call", {"name": "delta", "arguments": {}})
    assert unknown["result"]["isError"] is True
    assert tools.invocations() == [
        {"tool": "alpha", "arguments": {"x": "1"}, "meta": {"claudecode/toolUseId": "toolu_1"}},
        {"tool": "beta", "arguments": {}, "meta": None},
    ]


def test_a_tool_registered_after_initialize_is_announced_with_list_changed(
        tools: McpTools, client: Client) -> None:
    client.initialize()
    assert client.listed() == ["alpha", "beta"]
    tools.write([spec("alpha"), spec("beta"), spec("late")])
    assert client.next_notification() == LIST_CHANGED
    assert client.notifications(QUIET) == []  # exactly one for one change
    assert client.listed() == ["alpha", "beta", "late"]


def test_a_changed_description_is_announced_and_the_same_list_written_again_is_not(
        tools: McpTools, client: Client) -> None:
    client.initialize()
    tools.write([spec("alpha"), spec("beta")])
    assert client.notifications(QUIET) == []
    tools.write([spec("alpha", "a new description"), spec("beta")])
    assert client.notifications(QUIET + 1.0) == [LIST_CHANGED]


def test_no_change_is_announced_before_the_client_has_initialized(
        tools: McpTools, client: Client) -> None:
    tools.write([spec("early")])
    assert client.notifications(QUIET) == []
    client.request("initialize", {"protocolVersion": "2025-06-18"})
    tools.write([spec("between")])  # answered initialize, not yet told initialized
    assert client.notifications(QUIET) == []
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert client.listed() == ["between"]
    tools.write([spec("after")])
    assert client.next_notification() == LIST_CHANGED


def test_wait_listed_is_true_as_soon_as_the_runtime_has_re_listed_the_written_names(
        tools: McpTools, client: Client) -> None:
    client.initialize()
    client.listed()
    tools.write([spec("alpha"), spec("late")])

    def relist() -> None:
        client.next_notification()
        client.listed()

    runtime = threading.Thread(target=relist)
    runtime.start()
    began = time.monotonic()
    assert tools.wait_listed({"alpha", "late"}, timeout=PATIENCE)
    assert time.monotonic() - began < PATIENCE / 2
    runtime.join()


def test_wait_listed_is_false_at_the_timeout_when_nobody_re_lists(
        tools: McpTools, client: Client) -> None:
    client.initialize()
    assert client.listed() == ["alpha", "beta"]
    tools.write([spec("alpha"), spec("beta"), spec("late")])
    began = time.monotonic()
    assert not tools.wait_listed({"alpha", "beta", "late"}, timeout=0.3)
    assert 0.3 <= time.monotonic() - began < 0.3 + PATIENCE / 2
    # a list answered before the write is no re-list, even of the names the write kept
    tools.write([spec("alpha"), spec("beta")])
    assert not tools.wait_listed({"alpha", "beta"}, timeout=0.1)
    assert client.listed() == ["alpha", "beta"]
    assert not tools.wait_listed({"alpha"}, timeout=0.1)  # exactly the names, not a subset
    assert tools.wait_listed({"alpha", "beta"}, timeout=0.1)


def test_a_half_written_tools_file_never_yields_a_partial_list(
        tools: McpTools, client: Client) -> None:
    client.initialize()
    many = [spec(f"tool{i}", "x" * 200) for i in range(300)]
    lists = {"long": [t["name"] for t in many], "short": [t["name"] for t in many[:200]]}
    tools.write(many)
    stop = threading.Event()

    def rewrite() -> None:
        while not stop.is_set():
            tools.write(many)
            tools.write(many[:200])

    writer = threading.Thread(target=rewrite)
    writer.start()
    try:
        seen = [client.listed() for _ in range(300)]
    finally:
        stop.set()
        writer.join()
    assert all(names in lists.values() for names in seen), \
        sorted({len(names) for names in seen})
    assert list(tools.directory.glob(".tools-*")) == []  # no temporary file left


def test_invocations_are_every_record_so_far_in_order_across_servers(
        tools: McpTools, client: Client) -> None:
    assert tools.invocations() == []
    client.initialize()
    client.request("tools/call", {"name": "alpha", "arguments": {"n": 1}})
    other = Client(tools.command())  # a second process of the same deployment
    try:
        other.initialize()
        other.request("tools/call", {"name": "beta", "arguments": {"n": 2}})
    finally:
        other.close()
    assert [r["arguments"]["n"] for r in tools.invocations()] == [1, 2]
    assert [r["arguments"]["n"] for r in tools.invocations()] == [1, 2]  # all, again


def test_the_server_imports_only_the_standard_library() -> None:
    tree = ast.parse(Path(mcp_echo.__file__).read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    assert not any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


class _LateWatcher(mcp_echo.Server):
    """A server whose watcher thread runs only once the test let it (as a thread the OS
    scheduled late on a loaded machine)."""

    def __init__(self, *args: Any, go: threading.Event, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.go = go

    def watch(self, stop: threading.Event, last: list[dict[str, Any]]) -> None:
        self.go.wait(PATIENCE)
        super().watch(stop, last)


class _Lines:
    """The server's stdin, fed a line at a time; its stdout, a queue of messages."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.out: queue.Queue[dict[str, Any]] = queue.Queue()

    def __iter__(self) -> Iterator[str]:
        while (line := self.lines.get(timeout=PATIENCE)) is not None:
            yield line

    def write(self, text: str) -> None:
        for line in text.splitlines():
            self.out.put(json.loads(line))

    def flush(self) -> None:
        pass


def test_a_change_made_before_a_late_watcher_first_ran_is_still_announced(
        tools: McpTools) -> None:
    go, io = threading.Event(), _Lines()
    server = _LateWatcher(tools.tools, tools.invocations_file, None, io, go=go)  # type: ignore[arg-type]
    serving = threading.Thread(target=server.serve, args=(io,), daemon=True)
    serving.start()
    io.lines.put(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    io.lines.put(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
    assert io.out.get(timeout=PATIENCE)["id"] == 1  # initialized, and the watcher not yet run
    tools.write([spec("alpha"), spec("beta"), spec("late")])
    go.set()
    try:
        assert io.out.get(timeout=PATIENCE) == LIST_CHANGED
    finally:
        io.lines.put(None)
        serving.join(PATIENCE)
