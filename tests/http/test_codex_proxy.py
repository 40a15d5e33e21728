"""The Codex adapter's model endpoint (adapters/codex/codex_adapter/proxy.py) without Codex: the
kit's tools in and out of Codex's namespace ``mcp__tck`` under Codex's spelling of their names,
the start driver, the forwarding to the kit's gateway with attribution by marker and by thread
(docs/codex.md "How the adapter maps the kit's concepts")."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
from hypothesis import example, given
from hypothesis import strategies as st

from subagent_tck.conformance.core.gateway import Gateway, call
from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest, ToolCall
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.gateway_responses import (
    events_to_reply,
    reply_to_events,
    reply_to_response,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "codex"))

from codex_adapter.proxy import (
    NAMESPACE,
    Proxy,
    Route,
    names_back,
    own_tools,
    to_codex,
    to_kit,
    wire_name,
)

names = st.text(min_size=1, max_size=10)


@given(names)
@example("café")
@example("検索")
@example("x-y")
@example("read_file")
def test_codex_spells_a_tool_name_with_word_characters_alone(tool: str) -> None:
    wire = wire_name(tool)
    assert len(wire) == len(tool)
    assert all(c.isascii() and (c.isalnum() or c == "_") for c in wire)
    assert all(w == t for w, t in zip(wire, tool, strict=True)
               if t.isascii() and (t.isalnum() or t == "_"))


@given(st.lists(names, min_size=1, max_size=5, unique=True))
def test_a_wire_name_maps_back_only_when_one_kit_name_gives_it(tools: list[str]) -> None:
    back = names_back(tools)
    for wire, kit in back.items():
        assert [t for t in tools if wire_name(t) == wire] == [kit]
    shared = {wire_name(t) for t in tools} - set(back)
    assert all(sum(wire_name(t) == w for t in tools) > 1 for w in shared)


def _codex_body(tools: list[str], own: str) -> dict[str, Any]:
    return {"model": "m", "stream": True, "input": [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "function_call", "call_id": "c0", "namespace": NAMESPACE,
         "name": wire_name(tools[0]), "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c0", "output": "ok"}],
        "tools": [{"type": "namespace", "name": NAMESPACE, "description": "",
                   "tools": [{"type": "function", "name": wire_name(t),
                              "parameters": {"type": "object"}} for t in tools]},
                  {"type": "namespace", "name": "multi_agent_v1", "description": "",
                   "tools": [{"type": "function", "name": own,
                              "parameters": {"type": "object"}}]}]}


@given(st.lists(names, min_size=1, max_size=4, unique_by=wire_name),
       st.sampled_from(["spawn_agent", "wait_agent"]))
def test_the_kits_tools_travel_under_the_kits_names_and_come_back_in_codexs_namespace(
        tools: list[str], own: str) -> None:
    body = _codex_body(tools, own)
    codex_own = own_tools(body)
    assert codex_own == {f"multi_agent_v1__{own}": "multi_agent_v1"}
    to_kit(body, names_back(tools))
    assert [t["name"] for t in body["tools"] if t["type"] == "function"] == tools
    assert "namespace" not in body["input"][1] and body["input"][1]["name"] == tools[0]
    reply = ModelReply(toolCalls=[ToolCall(id="a", name=tools[-1]),
                                  ToolCall(id="b", name=f"multi_agent_v1__{own}")])
    for data, kind in ((reply_to_events(reply).encode(), "text/event-stream"),
                       (json.dumps(reply_to_response(reply)).encode(), "application/json")):
        renamed, called = to_codex(data, kind, codex_own)
        assert list(dict.fromkeys(called)) == [tools[-1], f"multi_agent_v1__{own}"]
        items = (json.loads(renamed)["output"] if kind == "application/json" else
                 [i for i in _stream_items(renamed.decode())])
        assert [(i["namespace"], i["name"]) for i in items] == [
            (NAMESPACE, wire_name(tools[-1])), ("multi_agent_v1", own)]


def _stream_items(stream: str) -> list[dict[str, Any]]:
    for block in stream.split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data:"):
                event = json.loads(line[5:])
                if event.get("type") == "response.completed":
                    return list(event["response"]["output"])
    raise AssertionError("no response.completed event")


def _marked(text: str, thread: str, parent: str | None = None) -> tuple[dict[str, Any],
                                                                       dict[str, str]]:
    body = {"model": "m", "stream": True, "instructions": "base",
            "input": [{"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": text}]},
                {"type": "message", "role": "user", "content": "go read"}],
            "tools": [{"type": "namespace", "name": NAMESPACE, "description": "", "tools": [
                {"type": "function", "name": "read", "parameters": {"type": "object"}}]}]}
    headers = {"thread-id": thread}
    if parent is not None:
        headers["x-codex-parent-thread-id"] = parent
    return body, headers


def test_a_marked_request_reaches_the_kit_attributed_and_renamed(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    driven: list[str] = []

    def drive(request: ModelRequest, token: str) -> ModelReply:
        driven.append(token)
        return call("multi_agent_v1__spawn_agent", {"message": "go read"})

    route = Route(url, drive, lambda: ["read"], lambda: {})
    base = proxy.mount("d1", route)
    gateway.script("go read", call("read", {"path": "/x"}))
    body, headers = _marked("persona" + agent_marker("child-1"), "t-child")
    answered = httpx.post(f"{base}/responses", json=body, headers=headers)
    assert answered.status_code == 200
    assert _stream_items(answered.text)[0]["namespace"] == NAMESPACE
    [request] = gateway.requests("child-1")
    assert [t.name for t in request.tools] == ["read"]
    assert route.last["child-1"].system.endswith("persona")
    body, headers = _marked("root" + agent_marker("root"), "t-start")
    body["input"][1]["content"] = "start [subagent-tck start=s1]"
    body["tools"].append({"type": "namespace", "name": "multi_agent_v1", "description": "",
                          "tools": [{"type": "function", "name": "spawn_agent"}]})
    started = httpx.post(f"{base}/responses", json={**body, "stream": False},
                         headers=headers)
    [spawn] = started.json()["output"]
    assert (spawn["namespace"], spawn["name"], driven) == ("multi_agent_v1", "spawn_agent",
                                                           ["s1"])
    assert len(gateway.exchanges) == 1  # the start driver's request never reaches the kit
    body, headers = _marked("root" + agent_marker("root"), "t-inherit", parent="t-other")
    route.threads["t-other"] = "root"  # a child of the root's run, its marker inherited
    refused = httpx.post(f"{base}/responses", json=body, headers=headers)
    assert refused.status_code == 403 and len(gateway.unattributed) == 1
    route.children["s1"] = "child-1"  # the start's child inherits the start root's marker
    body, headers = _marked("root" + agent_marker("root"), "t-2", parent="t-start")
    assert httpx.post(f"{base}/responses", json=body, headers=headers).status_code == 200
    assert len(gateway.requests("child-1")) == 2 and route.threads["t-2"] == "child-1"


def test_the_endpoint_answers_an_unknown_route_or_a_bad_body_with_a_responses_error(
        proxy: Proxy) -> None:
    for path in ("/p/nope/v1/responses", "/elsewhere"):
        answered = httpx.post(f"{proxy.url}{path}", json={})
        assert answered.status_code == 404 and "message" in answered.json()["error"]
    route = Route("http://127.0.0.1:9", lambda r, t: ModelReply(text="x"), list, dict)
    base = proxy.mount("d1", route)
    bad = httpx.post(f"{base}/responses", content=b"{not json")
    assert bad.status_code == 400 and bad.headers["x-should-retry"] == "false"


def test_a_streamed_answer_stays_a_stream_codex_can_read() -> None:
    reply = ModelReply(text="hi", toolCalls=[ToolCall(id="a", name="read")])
    data, _ = to_codex(reply_to_events(reply).encode(), "text/event-stream", {})
    back = events_to_reply(data.decode())
    assert back.text == "hi" and [c.name for c in back.toolCalls] == [NAMESPACE + "__read"]
