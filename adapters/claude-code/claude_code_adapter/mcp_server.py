"""The MCP server (stdio) that carries the kit's global tools into Claude Code.

    python mcp_server.py TOOLS_JSON INVOCATIONS_JSONL

Claude Code starts it from the deployment's ``--mcp-config`` (server name ``tck``, so its tools
reach the model as ``mcp__tck__NAME``). ``tools/list`` answers the ToolSpecs in TOOLS_JSON
(re-read on every list, so a tool registered between two runs is offered at the next);
``tools/call`` runs the kit's echo body: it appends ``{tool, arguments}`` to INVOCATIONS_JSONL
(the adapter attributes it to an agent, docs/claude-code.md "Tool bodies") and answers the call
it got as JSON text. JSON-RPC 2.0, one message per line (the MCP stdio transport).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

PROTOCOL = "2025-06-18"


def _tools(path: Path) -> list[dict[str, Any]]:
    try:
        specs = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [{"name": s["name"], "description": s.get("description", ""),
             "inputSchema": s.get("parameters") or {"type": "object"}} for s in specs]


def _answer(ident: Any, result: Any) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
    sys.stdout.flush()


def _fail(ident: Any, code: int, message: str) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident,
                                 "error": {"code": code, "message": message}}) + "\n")
    sys.stdout.flush()


def serve(tools: Path, invocations: Path) -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue  # a notification (initialized, cancelled): nothing to answer
        ident, method = message["id"], message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == "initialize":
            _answer(ident, {"protocolVersion": params.get("protocolVersion", PROTOCOL),
                            "capabilities": {"tools": {}},
                            "serverInfo": {"name": "subagent-tck", "version": "1"}})
        elif method == "tools/list":
            _answer(ident, {"tools": _tools(tools)})
        elif method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            if name not in {t["name"] for t in _tools(tools)}:
                _answer(ident, {"isError": True, "content": [
                    {"type": "text", "text": f"no tool named {name!r}"}]})
                continue
            record = {"tool": name, "arguments": arguments, "meta": params.get("_meta")}
            with invocations.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
            echo = json.dumps({"tool": name, "arguments": arguments})
            _answer(ident, {"content": [{"type": "text", "text": echo}], "isError": False})
        elif method == "ping":
            _answer(ident, {})
        else:
            _fail(ident, -32601, f"method {method!r} not found")


if __name__ == "__main__":
    serve(Path(sys.argv[1]), Path(sys.argv[2]))
