"""The kit's global tools as MCP servers, for the adapters that see a runtime only from its model
traffic (traffic.py): one MCP echo server (``mcp_echo.py``) per server name.

A target whose declared filter grammar has server-level entries (``mcp__{server}``,
docs/driver-api.md#dialect) gets tools with ``ToolSpec.server`` set and serves each server's
tools under that name, so that the runtime names them as its users see them (Claude Code:
``mcp__SERVER__NAME``). Tools without a server are on the adapter's default server. Every
server appends to one invocations file (the kit's names are unique across servers, so a record
names its tool), and each keeps its own tool list and its own record of the lists it answered
(a changed list is announced by the server it changed on).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from subagent_tck.conformance.core.protocol import ToolSpec
from subagent_tck.conformance.transports.mcp_echo import MODULE, McpTools


def default_server(name: str, tools: Iterable[ToolSpec]) -> str:
    """``name``, or ``name`` with a number when a tool of the deployment names that server
    already (the default server holds the tools that name none)."""
    taken = {t.server for t in tools if isinstance(t.server, str)}
    candidate, n = name, 0
    while candidate in taken:
        n += 1
        candidate = f"{name}{n}"
    return candidate


class McpServers:
    """A deployment's MCP servers, one directory each below ``directory`` (the default
    server's is ``directory`` itself: its invocations file is every server's)."""

    def __init__(self, directory: Path, default: str) -> None:
        self.default = default
        self._main = McpTools(directory)
        self._directory = Path(directory)
        self._servers: dict[str, McpTools] = {default: self._main}
        #: the servers of a definition's own tools (a preset's, PresetSpec.tools), by key
        self._own: dict[str, McpTools] = {}
        self._lists: dict[str, list[dict[str, Any]]] = {default: []}

    def server_of(self, tool: ToolSpec) -> str:
        """The server ``tool`` is served by."""
        return tool.server if isinstance(tool.server, str) and tool.server else self.default

    def names(self) -> list[str]:
        """Every server of the deployment so far, the default first."""
        return list(self._servers)

    def write(self, tools: Iterable[ToolSpec]) -> dict[str, set[str]]:
        """Give each server its tools; the servers whose list changed, with their names now
        (a server that lost every tool keeps serving an empty list)."""
        split: dict[str, list[dict[str, Any]]] = {name: [] for name in self._servers}
        for tool in tools:
            server = self.server_of(tool)
            split.setdefault(server, []).append(tool.model_dump(exclude={"server"}))
        changed: dict[str, set[str]] = {}
        for server, specs in split.items():
            files = self._servers.get(server)
            if files is None:
                files = self._servers[server] = McpTools(
                    self._directory / f"server-{len(self._servers)}")
            if specs != self._lists.get(server):
                files.write(specs)
                self._lists[server] = specs
                changed[server] = {s["name"] for s in specs}
        return changed

    def instruct(self, server: str, text: str) -> None:
        """``server``'s instructions (it must have been written to: :meth:`write`)."""
        self._servers[server].instruct(text)

    def commands(self) -> dict[str, list[str]]:
        """Each server's argv (this interpreter, by module name): its own tool list and list
        record, the one invocations file."""
        shared = str(self._main.invocations_file)
        return {name: [sys.executable, "-m", MODULE, str(files.tools), shared, str(files.status)]
                for name, files in self._servers.items()}

    def own(self, key: str, tools: Iterable[ToolSpec]) -> list[str]:
        """The argv of a server of ``key``'s own tools (a preset's ``tools``), which an agent
        definition names as a server of its own: its calls go to the one invocations file,
        each marked ``origin: local`` (a scope-local tool's body, docs/rules.md#TF-05)."""
        files = self._own.get(key)
        if files is None:
            files = self._own[key] = McpTools(self._directory / f"own-{len(self._own) + 1}")
        files.write([{**t.model_dump(exclude={"server"}), "origin": "local"} for t in tools])
        return [sys.executable, "-m", MODULE, str(files.tools), str(self._main.invocations_file),
                str(files.status)]

    def invocations(self) -> list[dict[str, Any]]:
        """Every ``{tool, arguments, meta}`` record the servers wrote so far, in order."""
        return self._main.invocations()

    def connected_since_write(self, servers: set[str]) -> bool:
        """Whether every server in ``servers`` began a new connection since its list was last
        written (McpTools.connected_since_write)."""
        return all(self._servers[server].connected_since_write() for server in servers)

    def wait_listed(self, changed: dict[str, set[str]], timeout: float) -> bool:
        """Whether every server in ``changed`` answered a ``tools/list`` with its new names
        within ``timeout`` seconds in all (the runtime re-listed after the announcement)."""
        deadline = time.monotonic() + timeout
        return all(self._servers[server].wait_listed(names, max(0.0, deadline - time.monotonic()))
                   for server, names in changed.items())
