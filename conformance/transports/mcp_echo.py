"""A stdio MCP server carrying the kit's global tools into a runtime that takes MCP servers, and
the adapter's side of it (:class:`McpTools`).

    python -m subagent_tck.conformance.transports.mcp_echo \
        TOOLS_JSON INVOCATIONS_JSONL [STATUS_JSONL]

An adapter names it in the runtime's MCP configuration (Claude Code: docs/claude-code.md, "How
the adapter maps the kit's concepts"). JSON-RPC 2.0, one message per line on stdin and stdout
(MCP's stdio transport):

- ``tools/list`` answers the ToolSpecs in TOOLS_JSON (a JSON list of ``{name, description,
  parameters}``), re-read on every list; a file that is missing or not JSON lists no tools.
  When STATUS_JSONL is given, every list answered appends ``{"listed": [NAME, ...]}`` to it
  (after the answer is written), so an adapter can tell that the runtime has re-listed, and
  every ``initialize`` answered appends ``{"initialized": true}`` (a connection begun);
- ``initialize`` answers, as the server's ``instructions``, the text of ``instructions.txt``
  beside TOOLS_JSON when that file is there and not empty (an adapter writes it where a
  deployment's prompt section guides this server's tool: docs/rules.md#TF-16);
- ``tools/call`` runs the kit's echo body: it appends ``{tool, arguments, meta}`` to
  INVOCATIONS_JSONL (``meta`` is the call's ``_meta``; the adapter attributes the record to an
  agent; a spec with an ``origin``, a scope's own tool, gives the record that ``origin``) and
  answers the call it got as JSON text; a name not listed is an errored result;
- the server declares ``capabilities.tools.listChanged``: a thread reads TOOLS_JSON every
  :data:`POLL` seconds and, once the client has sent ``notifications/initialized``, writes one
  ``notifications/tools/list_changed`` each time the tool list it would answer changes. Before
  that nothing is announced (the client lists when it has initialized).

Standard library only, and nothing of the kit: the runtime starts it as a plain process.
The adapter's side, :class:`McpTools`, keeps a deployment's three files in one directory and
writes TOOLS_JSON atomically (a temporary file and ``os.replace``), so neither the watcher nor a
list ever reads half a file.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

PROTOCOL = "2025-06-18"
#: How often the watcher reads TOOLS_JSON, in seconds.
POLL = 0.025
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
MODULE = "subagent_tck.conformance.transports.mcp_echo"
#: The file beside TOOLS_JSON whose text ``initialize`` answers as the server's instructions.
INSTRUCTIONS = "instructions.txt"


def _specs(path: Path) -> list[dict[str, Any]]:
    """The ToolSpecs in ``path`` (none for a file that is missing or not a JSON list)."""
    try:
        specs = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(specs, list):
        return []
    return [s for s in specs if isinstance(s, dict) and isinstance(s.get("name"), str)]


def listed_tools(path: Path) -> list[dict[str, Any]]:
    """The MCP tools that ``tools/list`` answers for the ToolSpecs in ``path``."""
    return [{"name": s["name"], "description": s.get("description", ""),
             "inputSchema": s.get("parameters") or {"type": "object"}} for s in _specs(path)]


def instructions(tools: Path) -> str:
    """The server's instructions: ``instructions.txt`` beside ``tools`` ("" without one)."""
    try:
        return tools.with_name(INSTRUCTIONS).read_text(encoding="utf-8")
    except OSError:
        return ""


def _append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


class Server:
    """One client's session: answers requests from :meth:`serve`'s lines, announces changes of
    the tool list from :meth:`watch` (a thread); every write to ``out`` holds one lock."""

    def __init__(self, tools: Path, invocations: Path, status: Path | None = None,
                 out: TextIO | None = None) -> None:
        self.tools, self.invocations, self.status = tools, invocations, status
        self._out = out if out is not None else sys.stdout
        self._lock = threading.Lock()
        self.initialized = threading.Event()

    def _send(self, message: dict[str, Any]) -> None:
        with self._lock:
            self._out.write(json.dumps(message) + "\n")
            self._out.flush()

    def _answer(self, ident: Any, result: Any) -> None:
        self._send({"jsonrpc": "2.0", "id": ident, "result": result})

    def watch(self, stop: threading.Event, last: list[dict[str, Any]]) -> None:
        """Until ``stop``: one ``list_changed`` per change of the tool list from ``last`` (read
        before the first line was served) seen after the client initialized (a change before
        that is only remembered)."""
        while not stop.wait(POLL):
            now = listed_tools(self.tools)
            if now != last:
                last = now
                if self.initialized.is_set():
                    self._send(LIST_CHANGED)

    def handle(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if "id" not in message:  # a notification: nothing to answer
            if method == "notifications/initialized":
                self.initialized.set()
            return
        ident = message["id"]
        given = message.get("params")
        params: dict[str, Any] = given if isinstance(given, dict) else {}
        if method == "initialize":
            result = {"protocolVersion": params.get("protocolVersion", PROTOCOL),
                      "capabilities": {"tools": {"listChanged": True}},
                      "serverInfo": {"name": "subagent-tck", "version": "1"}}
            guidance = instructions(self.tools)
            if guidance:
                result["instructions"] = guidance
            self._answer(ident, result)
            if self.status is not None:
                _append(self.status, {"initialized": True})
        elif method == "tools/list":
            tools = listed_tools(self.tools)
            self._answer(ident, {"tools": tools})
            if self.status is not None:
                _append(self.status, {"listed": [t["name"] for t in tools]})
        elif method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            spec = next((s for s in _specs(self.tools) if s.get("name") == name), None)
            if spec is None:
                self._answer(ident, {"isError": True, "content": [
                    {"type": "text", "text": f"no tool named {name!r}"}]})
                return
            record = {"tool": name, "arguments": arguments, "meta": params.get("_meta")}
            if isinstance(spec.get("origin"), str):  # a scope's own tool (McpTools.write)
                record["origin"] = spec["origin"]
            _append(self.invocations, record)
            echo = json.dumps({"tool": name, "arguments": arguments})
            self._answer(ident, {"content": [{"type": "text", "text": echo}], "isError": False})
        elif method == "ping":
            self._answer(ident, {})
        else:
            self._send({"jsonrpc": "2.0", "id": ident,
                        "error": {"code": -32601, "message": f"method {method!r} not found"}})

    def serve(self, lines: Iterable[str]) -> None:
        """Answer every line until the input ends, the watcher running meanwhile."""
        stop = threading.Event()
        # the list as it is before any line is answered, read here and not in the thread: a
        # thread scheduled late read a list already changed after the client initialized as
        # its first, and never announced that change (seen once in CI on a loaded machine)
        watcher = threading.Thread(target=self.watch, args=(stop, listed_tools(self.tools)),
                                   daemon=True, name="mcp-echo-watch")
        watcher.start()
        try:
            for line in lines:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                self.handle(message)
        finally:
            stop.set()
            watcher.join()


def _records(path: Path, start: int = 0) -> tuple[list[dict[str, Any]], int]:
    """The complete JSON lines of ``path`` from byte ``start``, and the offset after them."""
    try:
        with path.open("rb") as source:
            source.seek(start)
            data = source.read()
    except OSError:
        return [], start
    end = data.rfind(b"\n") + 1  # a line still being written is left for the next read
    records = [json.loads(line) for line in data[:end].splitlines() if line.strip()]
    return records, start + end


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class McpTools:
    """A deployment's tool files in ``directory`` (``tools.json``, ``invocations.jsonl``,
    ``status.jsonl``), as an adapter keeps them; every server :meth:`command` starts shares
    them."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.tools = self.directory / "tools.json"
        self.invocations_file = self.directory / "invocations.jsonl"
        self.status = self.directory / "status.jsonl"
        self._written = 0  # status.jsonl's size when the tools were last written
        if not self.tools.exists():
            self.write([])

    def command(self) -> list[str]:
        """The argv that starts a server on these files (this interpreter, by module name)."""
        return [sys.executable, "-m", MODULE, str(self.tools), str(self.invocations_file),
                str(self.status)]

    def write(self, specs: list[dict[str, Any]]) -> None:
        """Replace the tool list with ``specs`` (ToolSpecs as dicts) in one step."""
        self._written = _size(self.status)  # a list answered from here on may be the new one
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tools-",
                                             suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(specs, out)
            os.replace(temporary, self.tools)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def instruct(self, text: str) -> None:
        """The instructions the server answers from its next ``initialize`` on ("": none)."""
        (self.directory / INSTRUCTIONS).write_text(text, encoding="utf-8")

    def invocations(self) -> list[dict[str, Any]]:
        """Every ``{tool, arguments, meta}`` record the servers wrote so far, in order."""
        return _records(self.invocations_file)[0]

    def connected_since_write(self) -> bool:
        """Whether a client began a connection (``initialize``) since the last :meth:`write`:
        its first list is the one it starts from, not a change it is told of."""
        return any(r.get("initialized") for r in _records(self.status, self._written)[0])

    def wait_listed(self, names: set[str], timeout: float) -> bool:
        """True as soon as a ``tools/list`` answered since the last :meth:`write` listed exactly
        ``names``; False after ``timeout`` seconds without one (the runtime did not re-list)."""
        deadline = time.monotonic() + timeout
        offset = self._written
        while True:
            records, offset = _records(self.status, offset)
            if any("listed" in r and set(r["listed"]) == names for r in records):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(POLL, max(0.0, deadline - time.monotonic())))


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        sys.stderr.write(f"usage: python -m {MODULE} TOOLS_JSON INVOCATIONS_JSONL "
                         "[STATUS_JSONL]\n")
        return 2
    status = Path(argv[2]) if len(argv) == 3 else None
    Server(Path(argv[0]), Path(argv[1]), status).serve(sys.stdin)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
