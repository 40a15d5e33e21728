"""A section that guides a tool alone on its MCP server becomes that server's instructions
(conformance/transports/traffic.py ``guided_servers``, docs/rules.md#TF-16): the runtime's own
guidance, which the kit can then judge through restriction channels."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core.protocol import DeploymentConfig, SectionSpec, ToolSpec
from subagent_tck.conformance.transports.mcp_echo import instructions
from subagent_tck.conformance.transports.traffic import guided_servers
from subagent_tck.conformance.transports.traffic_servers import McpServers

WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz_"), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(WORD, min_size=3, max_size=6, unique=True), st.data())
def test_only_a_tool_alone_on_a_server_of_its_own_takes_its_guidance(
        names: list[str], data: st.DataObject) -> None:
    alone, shared_a, shared_b, *rest = names
    tools = [ToolSpec(name=alone, server="own"), ToolSpec(name=shared_a, server="both"),
             ToolSpec(name=shared_b, server="both"), *(ToolSpec(name=n) for n in rest)]
    text = data.draw(WORD)
    sections = [SectionSpec(name="g1", text=text, guides=alone),
                SectionSpec(name="g2", text="x", guides=shared_a),
                SectionSpec(name="n", text="prose"),
                *(SectionSpec(name=f"g{n}", text="y", guides=n) for n in rest)]
    got = guided_servers(DeploymentConfig(tools=tools, sections=sections), "tck")
    assert {server: [s.name for s in found] for server, found in got.items()} == {"own": ["g1"]}


def test_a_server_given_instructions_answers_them_from_its_own_directory(tmp_path: Path) -> None:
    servers = McpServers(tmp_path, "tck")
    servers.write([ToolSpec(name="a"), ToolSpec(name="b", server="own")])
    servers.instruct("own", "use b for words")
    own, default = servers.commands()["own"], servers.commands()["tck"]
    assert instructions(Path(own[-3])) == "use b for words"
    assert instructions(Path(default[-3])) == ""
