"""The kit's global tools as one MCP echo server per server name
(conformance/transports/traffic_servers.py), without a runtime: which server serves a tool, what
each server's tool list holds, which lists changed, one invocations file."""

from __future__ import annotations

import json
from pathlib import Path

from subagent_tck.conformance.core.protocol import ToolSpec
from subagent_tck.conformance.transports.traffic_servers import McpServers, default_server


def test_the_default_server_takes_a_name_no_tool_names() -> None:
    assert default_server("tck", [ToolSpec(name="a")]) == "tck"
    assert default_server("tck", [ToolSpec(name="a", server="tck"),
                                  ToolSpec(name="b", server="tck1")]) == "tck2"


def test_each_server_lists_its_own_tools_and_says_which_lists_changed(tmp_path: Path) -> None:
    servers = McpServers(tmp_path, "tck")
    tools = [ToolSpec(name="read"), ToolSpec(name="search", server="alpha"),
             ToolSpec(name="fetch", server="alpha")]
    assert servers.write(tools) == {"tck": {"read"}, "alpha": {"search", "fetch"}}
    assert servers.names() == ["tck", "alpha"]
    commands = servers.commands()
    listed = {name: [t["name"] for t in json.loads(Path(argv[-3]).read_text())]
              for name, argv in commands.items()}
    assert listed == {"tck": ["read"], "alpha": ["search", "fetch"]}
    assert len({argv[-2] for argv in commands.values()}) == 1  # one invocations file
    # a change on one server changes that server's list only; a server left with no tool
    # keeps serving an empty list
    assert servers.write([ToolSpec(name="read"), ToolSpec(name="fetch", server="alpha")]) == {
        "alpha": {"fetch"}}
    assert servers.write([ToolSpec(name="read")]) == {"alpha": set()}
    assert servers.write([ToolSpec(name="read")]) == {}


def test_a_definition_s_own_server_lists_its_tools_and_records_their_calls_as_local(
        tmp_path: Path) -> None:
    import subprocess

    servers = McpServers(tmp_path, "tck")
    servers.write([ToolSpec(name="bravo", description="tool bravo")])
    argv = servers.own("tck-child-1", [ToolSpec(name="bravo", description="own bravo")])
    assert argv[-2] == servers.commands()["tck"][-2]  # the one invocations file
    assert "tck-child-1" not in servers.names()  # not a server of the --mcp-config
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "bravo", "arguments": {}}}]
    done = subprocess.run(argv, input="".join(json.dumps(m) + "\n" for m in lines),
                          capture_output=True, text=True, timeout=30, check=True)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    listed = answers[0]["result"]["tools"]
    assert [(t["name"], t["description"]) for t in listed] == [("bravo", "own bravo")]
    assert "origin" not in listed[0]  # the runtime sees a plain MCP tool
    assert servers.invocations() == [{"tool": "bravo", "arguments": {}, "meta": None,
                                      "origin": "local"}]
