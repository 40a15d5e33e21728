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
