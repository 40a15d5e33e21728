"""The Qwen Code adapter's model endpoint (adapters/qwen-code/qwen_code_adapter/proxy.py) and
names (names.py) without Qwen Code: the names Qwen Code 0.24.4 gives the kit's MCP tools and
their way back, the renaming of requests and answers, and the route over real loopback HTTP:
the start driver and the forwarding to the kit's gateway with attribution by marker."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from chat_renaming import assert_round_trip, chat, function, no_driver, read_reply
from hypothesis import example, given
from hypothesis import strategies as st

from subagent_tck.conformance.core.gateway import Gateway, call
from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.engine.checks._names import tool_name, tool_names
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker, find_marker
from subagent_tck.conformance.transports.gateway_chat import reply_to_chat
from subagent_tck.conformance.transports.traffic_chat import to_kit, to_runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "qwen-code"))

from qwen_code_adapter.names import names_back, wire_name
from qwen_code_adapter.proxy import Proxy, Route

SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


# --- the names -------------------------------------------------------------------------


def test_the_hand_written_names_have_the_wire_names_qwen_codes_javascript_gives_them() -> None:
    # each right-hand side printed by Qwen Code 0.24.4's normalizeToolNameForProvider (copied
    # from its bundle into node) for `mcp__tck__${name}`
    assert wire_name("read_file") == "mcp__tck__read_file"
    assert wire_name("a-b") == "mcp__tck__a-b"
    assert wire_name("café") == "mcp__tck__caf__1il30ay"
    assert wire_name("検索") == "mcp__tck_____0edzz2t"
    assert wire_name("𝐀") == "mcp__tck_____16b54zy"  # outside the BMP: two UTF-16 units
    assert wire_name("x.y") == "mcp__tck__x_y_1ei5ldg"
    assert wire_name("x" * 71) == "mcp__tck__" + "x" * 45 + "_1w4u6mp"  # cut to 63


def test_a_tool_of_another_server_is_named_by_that_server_as_qwen_codes_javascript_names_it(
) -> None:
    # each right-hand side printed by node from Qwen Code 0.24.4's normalizeToolNameForProvider
    # (its FNV-1a hash and cleaning) for `mcp__${server}__${name}`
    assert wire_name("read", "guide") == "mcp__guide__read"
    assert wire_name("café", "my.server") == "mcp__my_server__caf__0cze0pr"
    assert wire_name("x", "検") == "mcp_____x_1f09h53"
    assert wire_name("read") == wire_name("read", "tck")


@given(tools=tool_names(min_size=1, max_size=6), data=st.data())
def test_names_back_by_each_tools_own_server_leads_back_to_its_kit_name(
        tools: list[str], data: st.DataObject) -> None:
    where = {t: data.draw(st.sampled_from(["tck", "guide", "x.y"])) for t in tools}
    back = names_back(tools, lambda t: wire_name(t, where[t]))
    assert all(back[wire_name(t, where[t])] == t for t in tools)


@given(tool_name())
@example("café")
@example("x" * 64)
def test_a_wire_name_is_provider_safe_and_at_most_63_characters(name: str) -> None:
    wire = wire_name(name)
    assert wire.startswith("mcp__tck__") and len(wire) <= 63 and set(wire) <= SAFE
    if len(name) <= 53 and set(name) <= SAFE:
        assert wire == "mcp__tck__" + name  # a safe name is kept as it is


@given(tool_names(max_size=8))
def test_each_wire_name_leads_back_to_its_one_kit_name(tools: list[str]) -> None:
    back = names_back(tools)
    assert all(back[wire_name(t)] == t for t in tools)  # the hash keeps cleaned twins apart
    assert names_back(["café", "cafè", "caf_"]) == {wire_name(t): t for t in
                                                    ("café", "cafè", "caf_")}


# --- renaming requests and answers -----------------------------------------------------


@given(tool_names(min_size=1, max_size=4, avoid=("agent", "never-offered")), st.booleans())
def test_the_kits_tools_travel_under_the_kits_names_and_come_back_as_mcp_names(
        tools: list[str], usage: bool) -> None:
    assert_round_trip(tools, usage, "agent", wire_name, names_back)



def test_a_kit_tool_named_like_qwen_codes_own_goes_to_the_kits_tool() -> None:
    body: dict[str, Any] = {"tools": [function("agent"), function(wire_name("agent"))],
                            "messages": [{"role": "user", "content": "go"}]}
    own = to_kit(body, names_back(["agent"]))
    assert own == {"agent"}
    renamed, _ = to_runtime(json.dumps(reply_to_chat(call("agent", {}), "m")).encode(),
                            "application/json", own - {"agent"}, wire_name)
    assert json.loads(renamed)["choices"][0]["message"]["tool_calls"][0]["function"][
        "name"] == "mcp__tck__agent"


# --- the route over loopback HTTP ------------------------------------------------------


#: The user's message of every request posted here: Qwen Code sends it as a list of parts.
GO_ECHO = [{"type": "text", "text": "go echo"}]


@pytest.mark.parametrize("stream", [True, False])
def test_a_start_request_is_answered_by_the_driver_and_never_reaches_the_kit(
        kit: tuple[Gateway, str], proxy: Proxy, stream: bool) -> None:
    gateway, url = kit
    asked: list[str] = []

    def drive(request: ModelRequest, token: str) -> ModelReply:
        asked.append(token)
        return call("agent", {"prompt": "go", "subagent_type": "tck-child-1",
                              "run_in_background": False})

    route = Route(url, drive, tools=lambda: ["echo"])
    base = proxy.mount("d1", route)
    assert base == f"{proxy.url}/p/d1/v1"
    system = "root" + agent_marker("root") + "\n[subagent-tck start=s-1_A]"
    reply = read_reply(httpx.post(f"{base}/chat/completions",
                                  json=chat(system, GO_ECHO, ["agent", "mcp__tck__echo"], stream)),
                       stream)
    assert [(c.name, c.arguments) for c in reply.toolCalls] == [
        ("agent", {"prompt": "go", "subagent_type": "tck-child-1", "run_in_background": False})]
    assert asked == ["s-1_A"]
    assert gateway.requests() == [] and route.last == {} and route.told == {}


def test_a_marked_request_reaches_the_kit_attributed_with_kit_names_and_comes_back_renamed(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    route = Route(url, no_driver, tools=lambda: ["echo", "café"])
    base = proxy.mount("d1", route)
    gateway.script("go echo", call("echo", {"text": "hi"}))
    system = "persona" + agent_marker("child-1") + "\n\nImportant Rules: ..."
    body = chat(system, GO_ECHO, [wire_name("echo"), wire_name("café"), "agent"], True)
    reply = read_reply(httpx.post(f"{base}/chat/completions", json=body), True)
    assert [(c.name, c.arguments) for c in reply.toolCalls] == [("mcp__tck__echo",
                                                                 {"text": "hi"})]
    [request] = gateway.requests("child-1")
    assert [t.name for t in request.tools] == ["echo", "café", "agent"]
    cut = find_marker(system)[1]
    assert cut == "persona\n\nImportant Rules: ..." and request.system == cut
    assert route.last["child-1"].system == cut and route.told == {"echo": "child-1"}


def test_a_request_that_is_no_chat_completion_is_refused_without_retry(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    base = proxy.mount("d1", Route(url, no_driver, tools=lambda: []))
    answer = httpx.post(f"{base}/chat/completions", content=b"[1, 2")
    assert answer.status_code == 400 and answer.headers["x-should-retry"] == "false"
    assert httpx.post(f"{proxy.url}/p/nope/v1/chat/completions", json={}).status_code == 404
    assert gateway.requests() == []


def test_what_a_call_of_agent_got_is_read_from_qwen_codes_json_output() -> None:
    """Qwen Code's JSON output records each tool result of the top-level session with its
    ``is_error`` (Chat Completions carries no flag): ``delegated`` reads the block that answers
    the start's call, and nothing for a call it does not answer (docs/qwen-code.md#st-09)."""
    from qwen_code_adapter.target import delegated

    events = [
        "not an event", ["nor", "this"], {"type": "user", "message": "no blocks"},
        {"type": "system", "subtype": "init"},
        {"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "call_tck_1", "name": "agent", "input": {}}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "call_tck_0", "is_error": True,
             "content": "other"},
            {"type": "tool_result", "tool_use_id": "call_tck_1", "is_error": False,
             "content": "Subagent execution failed."}]}},
        {"type": "result", "is_error": False, "result": "done"},
    ]
    got = delegated(events, "call_tck_1")
    assert got is not None and got.isError is False
    assert got.content == "Subagent execution failed."
    errored = delegated(events, "call_tck_0")
    assert errored is not None and errored.isError is True
    assert delegated(events, "call_tck_2") is None
    assert delegated(None, "call_tck_1") is None  # the run printed no JSON


# --- the depth setting -------------------------------------------------------------------


@pytest.mark.parametrize(("setting", "flag"), [
    (2, "--max-subagent-depth=2"), (1.0, "--max-subagent-depth=1"),
    (-1, "--max-subagent-depth=-1"), (-0.0, "--max-subagent-depth=-0"),
    (float("nan"), "--max-subagent-depth=NaN"), ("1", "--max-subagent-depth=1"),
    (2**53, "--max-subagent-depth=9007199254740992"), (None, "--max-subagent-depth=null"),
])
def test_a_runs_depth_setting_is_one_max_subagent_depth_argument_as_a_user_writes_it(
        kit: tuple[Gateway, str], proxy: Proxy, tmp_path: Path, setting: object,
        flag: str) -> None:
    """Qwen Code, not the adapter, decides what the text means (docs/qwen-code.md#depth): a
    value it cannot take is refused by its own command line, as a user's would be; one
    argument, so that ``-1`` is never read as an option of its own."""
    import subprocess

    from qwen_code_adapter.target import QwenCodeDeployment

    from subagent_tck.conformance.core.protocol import DeploymentConfig

    dep = QwenCodeDeployment(DeploymentConfig(), kit[1], proxy, "depth")
    commands: list[list[str]] = []

    def run(command: list[str], *args: Any, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        commands.append(command)
        return subprocess.CompletedProcess(command, 0, b"[]", b"")

    try:
        dep.runs.run = run  # type: ignore[method-assign]
        dep._qwen("go", "system", setting)
        dep._qwen("go", "system")  # no setting: Qwen Code's default (5)
    finally:
        dep.close()
    assert [c for c in commands[0] if c.startswith("--max-subagent-depth")] == [flag]
    assert not any(c.startswith("--max-subagent-depth") for c in commands[1])


def test_qwen_codes_refusal_of_a_depth_setting_is_read_from_its_line_before_the_stack(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    """Qwen Code 0.24.4 refuses --max-subagent-depth 0 at startup and prints the stack after
    its words (resolveMaxSubagentDepth): the adapter reads the line with the words, which its
    refusal_words translate (INVALID_DEPTH), not the stack's end."""
    import subprocess

    from qwen_code_adapter.target import QwenCodeDeployment

    from subagent_tck.conformance.core.protocol import DeploymentConfig

    dep = QwenCodeDeployment(DeploymentConfig(), kit[1], proxy, "why")
    said = ("Error: --max-subagent-depth must be an integer between 1 and 100; got 0.\n"
            + "    at resolveMaxSubagentDepth (chunk.js:49939:13)\n" * 40).encode()
    try:
        why = dep._why(subprocess.CompletedProcess([], 1, b"", said))
        plain = dep._why(subprocess.CompletedProcess([], 1, b"", b"x" * 900))
    finally:
        dep.close()
    assert why == "Error: --max-subagent-depth must be an integer between 1 and 100; got 0."
    assert plain == "x" * 500
