"""The opencode adapter's model endpoint (adapters/opencode/opencode_adapter/proxy.py) without
opencode: the names opencode gives the kit's MCP tools and their way back, the tool filter as
opencode's permission rules (target.py ``permission``), the renaming of requests and answers,
and the route over real loopback HTTP: the start driver, the probe, and the forwarding to the
kit's gateway with attribution by marker."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from chat_renaming import assert_round_trip, called, chat, function, no_driver, read_reply
from http_helpers import MODEL_ROUTES, front_lines, model_start
from hypothesis import assume, example, given
from hypothesis import strategies as st

from subagent_tck.conformance.core.gateway import Gateway, call
from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.engine.checks._names import tool_name, tool_names
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker, find_marker
from subagent_tck.conformance.transports.traffic_chat import to_kit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "opencode"))

from opencode_adapter.proxy import (
    Proxy,
    Route,
    names_back,
    wire_name,
)
from opencode_adapter.rules import permission

SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
#: Names opencode keeps as they are (so their wire names never meet).
ascii_names = st.text(st.sampled_from(sorted(SAFE)), min_size=1, max_size=8)


# --- the names -------------------------------------------------------------------------


@given(tool_name())
@example("café")
@example("検索")
@example("a-b")
@example("x" * 64)
def test_a_kit_tool_is_named_tck_and_its_name_with_every_other_character_as_underscore(
        name: str) -> None:
    assume(all(ord(c) <= 0xFFFF for c in name))  # one UTF-16 unit a character (see below)
    assert wire_name(name) == "tck_" + "".join(c if c in SAFE else "_" for c in name)


def test_the_hand_written_names_have_the_wire_names_opencode_gives_them() -> None:
    assert wire_name("café") == "tck_caf_"
    assert wire_name("検索") == "tck___"
    assert wire_name("a-b") == "tck_a-b"
    assert wire_name("mcp__github__create_issue") == "tck_mcp__github__create_issue"


def test_a_character_outside_the_bmp_becomes_two_underscores_as_in_opencodes_javascript() -> None:
    # "𝐀" (U+1D400, category Lu, NFC) is a kit tool name; node -e
    # 'console.log("𝐀".replace(/[^a-zA-Z0-9_-]/g,"_"))' prints "__"
    assert wire_name("𝐀") == "tck___"
    assert names_back(["𝐀"]) == {"tck___": "𝐀"}


@given(server=tool_name(), name=tool_name())
@example(server="tck", name="x")
@example(server="my.server", name="café")
def test_a_tool_of_another_server_is_named_by_that_server_both_parts_cleaned(
        server: str, name: str) -> None:
    # opencode 1.18.33: (server, tool) => clean(server) + "_" + clean(tool), clean replacing
    # every UTF-16 unit outside [A-Za-z0-9_-] by "_"
    def clean(text: str) -> str:
        return "".join(c if c in SAFE else "_" * (len(c.encode("utf-16-le")) // 2)
                       for c in text)
    assert wire_name(name, server) == clean(server) + "_" + clean(name)
    assert wire_name(name) == wire_name(name, "tck")


@given(tools=tool_names(min_size=1, max_size=6), servers=st.lists(ascii_names, min_size=1,
                                                                  max_size=3),
       data=st.data())
def test_permission_rules_name_each_tool_by_its_own_server(tools: list[str], servers: list[str],
                                                           data: Any) -> None:
    where = {t: data.draw(st.sampled_from(servers)) for t in tools}
    allow = data.draw(st.lists(st.sampled_from(tools), unique=True))
    deny = data.draw(st.lists(st.sampled_from(tools), unique=True))
    rules = permission({"allow": allow, "deny": deny}, lambda t: wire_name(t, where[t]))
    denied = {wire_name(t, where[t]) for t in deny}
    for tool in deny:
        assert rules[wire_name(tool, where[tool])] == "deny"
    for tool in set(allow) - set(deny):
        # two kit names may meet in one wire name ("µ" and "Μ" are both "_"): opencode cannot
        # tell them apart, and a deny of either is a deny of both
        wire = wire_name(tool, where[tool])
        assert rules[wire] == ("deny" if wire in denied else "allow")
    assert set(rules) == {"*"} | {wire_name(t, where[t]) for t in {*allow, *deny}}


def test_an_allowed_tool_that_meets_a_denied_one_in_its_wire_name_is_denied_with_it() -> None:
    # drawn once in a run of the property above: "µ" (micro sign) and "Μ" (Greek capital mu)
    # on server "0" are both "0__" to opencode; the deny, written last, decides for both
    rules = permission({"allow": ["µ", "get_weather", "Μ"], "deny": ["µ"]},
                       lambda t: wire_name(t, "0"))
    assert rules == {"*": "deny", "0_get_weather": "allow", "0__": "deny"}
    assert list(rules)[-1] == "0__"


@given(tool_names(max_size=8))
def test_each_wire_name_leads_back_to_its_one_kit_name(tools: list[str]) -> None:
    back = names_back(tools)
    wires = [wire_name(t) for t in tools]
    for tool in tools:
        wire = wire_name(tool)
        if wires.count(wire) == 1:
            assert back[wire] == tool
        else:
            assert wire not in back
    assert set(back) <= set(wires)


def test_a_wire_name_two_kit_names_share_is_left_out() -> None:
    back = names_back(["café", "cafè", "検索", "調査", "read"])
    assert back == {"tck_read": "read"}
    assert names_back(["café", "caf_"]) == {}
    assert names_back(["café"]) == {"tck_caf_": "café"}


# --- the tool filter as permission rules -----------------------------------------------


def test_an_allow_list_denies_everything_first_then_allows_each_name_in_order() -> None:
    rules = permission({"allow": ["b", "café", "a"]})
    assert list(rules.items()) == [("*", "deny"), ("tck_b", "allow"), ("tck_caf_", "allow"),
                                   ("tck_a", "allow")]


def test_denied_names_come_after_the_allowed_and_one_both_allowed_and_denied_comes_last() -> None:
    rules = permission({"allow": ["a", "b", "c"], "deny": ["b", "d"]})
    assert list(rules.items()) == [("*", "deny"), ("tck_a", "allow"), ("tck_c", "allow"),
                                   ("tck_b", "deny"), ("tck_d", "deny")]


def test_a_deny_only_filter_has_no_catch_all_rule() -> None:
    assert list(permission({"deny": ["x", "y"]}).items()) == [("tck_x", "deny"),
                                                                ("tck_y", "deny")]
    assert permission({"allow": []}) == {"*": "deny"}


@pytest.mark.parametrize("tool_filter", [
    None, "read", ["read"], 3, {"allow": "read"}, {"allow": ["read", 1]}, {"deny": [None]},
    {"allow": {"read": True}}, {"allow": ["read"], "only": ["read"]}, {"tools": {"read": False}},
])
def test_a_filter_of_another_shape_is_written_as_it_is(tool_filter: Any) -> None:
    assert permission(tool_filter) is tool_filter


def opencode_allows(rules: dict[str, str], tool: str) -> bool:
    """opencode's reading of ordered rules: the last rule that matches wins, ``*`` matches every
    tool, a tool no rule matches is allowed."""
    verdict = "allow"
    for pattern, action in rules.items():
        if pattern in ("*", tool):
            verdict = action
    return verdict == "allow"


@st.composite
def filters(draw: Any) -> tuple[list[str] | None, list[str], list[str]]:
    universe = draw(st.lists(ascii_names, min_size=1, max_size=8, unique=True))
    allow = draw(st.none() | st.lists(st.sampled_from(universe), max_size=6))
    deny = draw(st.lists(st.sampled_from(universe), max_size=6))
    return allow, deny, universe


@given(filters())
def test_opencode_reading_the_rules_shows_exactly_the_tools_the_kits_filter_leaves(
        drawn: tuple[list[str] | None, list[str], list[str]]) -> None:
    allow, deny, universe = drawn
    tool_filter: dict[str, Any] = {"deny": deny} if allow is None else {"allow": allow,
                                                                         "deny": deny}
    rules = permission(tool_filter)
    for name in universe:  # the allowed, the denied, and strangers to both
        visible = (allow is None or name in allow) and name not in deny
        assert opencode_allows(rules, wire_name(name)) is visible, (name, rules)


# --- renaming requests and answers -----------------------------------------------------


@given(tool_names(min_size=1, max_size=4, avoid=("task", "never-offered")),
       st.booleans())
def test_the_kits_tools_travel_under_the_kits_names_and_come_back_as_tck_names(
        tools: list[str], usage: bool) -> None:
    assume(len({wire_name(t) for t in tools}) == len(tools))
    assert_round_trip(tools, usage, "task", wire_name, names_back)



def test_a_shared_wire_name_reaches_the_kit_as_it_is() -> None:
    body: dict[str, Any] = {"tools": [function("tck_caf_"), function("tck_read")],
                            "messages": [{"role": "user", "content": "go"}]}
    to_kit(body, names_back(["café", "cafè", "read"]))
    assert [t["function"]["name"] for t in body["tools"]] == ["tck_caf_", "read"]


# --- the route over loopback HTTP ------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_a_start_request_is_answered_by_the_driver_and_never_reaches_the_kit(
        kit: tuple[Gateway, str], proxy: Proxy, stream: bool) -> None:
    gateway, url = kit
    asked: list[tuple[str, str]] = []

    def drive(request: ModelRequest, token: str) -> ModelReply:
        asked.append((request.messages[0].content or "", token))
        return call("task", {"prompt": "go", "subagent_type": "tck-child"})

    route = Route(url, drive, tools=lambda: ["echo"])
    base = proxy.mount("d1", route)
    assert base == f"{proxy.url}/p/d1/v1"
    user = "[subagent-tck start=s-1_A] begin"
    answer = httpx.post(f"{base}/chat/completions",
                        json=chat("root\n" + agent_marker("root"), user, ["task", "tck_echo"],
                                  stream))
    assert [(c.name, c.arguments) for c in read_reply(answer, stream).toolCalls] == [
        ("task", {"prompt": "go", "subagent_type": "tck-child"})]
    assert asked == [(user, "s-1_A")]
    assert gateway.requests() == [] and gateway.exchanges == []
    assert route.last == {} and route.told == {}


@pytest.mark.parametrize("stream", [True, False])
def test_a_probe_is_answered_done_kept_and_never_reaches_the_kit(
        kit: tuple[Gateway, str], proxy: Proxy, stream: bool) -> None:
    gateway, url = kit
    route = Route(url, no_driver, tools=lambda: [])
    base = proxy.mount("probe", route)
    answer = httpx.post(f"{base}/chat/completions",
                        json=chat("build", "[subagent-tck probe] list your tools",
                                  ["bash", "read", "task"], stream))
    reply = read_reply(answer, stream)
    assert reply.text == "done" and reply.toolCalls == []
    assert route.probed is not None
    assert [t.name for t in route.probed.tools] == ["bash", "read", "task"]
    assert gateway.requests() == [] and gateway.exchanges == []


def test_a_marked_request_reaches_the_kit_attributed_with_kit_names_and_comes_back_renamed(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    route = Route(url, no_driver, tools=lambda: ["echo", "café"])
    base = proxy.mount("d1", route)
    gateway.script("go echo", call("echo", {"text": "hi"}),
                   call("café", {}, "call-2"))
    system = "persona\n" + agent_marker("child-1") + "\nYou are powered by ..."
    body = chat(system, "go echo", ["tck_echo", "tck_caf_", "task"], True)
    reply = read_reply(httpx.post(f"{base}/chat/completions", json=body), True)
    assert [(c.name, c.arguments) for c in reply.toolCalls] == [("tck_echo", {"text": "hi"})]
    [request] = gateway.requests("child-1")
    assert [t.name for t in request.tools] == ["echo", "café", "task"]
    cut = find_marker(system)[1]  # the persona and opencode's text, the marker cut
    assert "[subagent-tck" not in cut and request.system == cut
    seen = route.last["child-1"]
    assert seen.agent == "child-1" and seen.system == cut
    assert [t.name for t in seen.tools] == ["echo", "café", "task"]
    assert route.told == {"echo": "child-1"}
    # the next request carries the call in its history under opencode's name, unstreamed
    body["stream"] = False
    del body["stream_options"]
    body["messages"] += [{"role": "assistant", "content": None,
                          "tool_calls": [called("tck_echo", "call-1")]},
                         {"role": "tool", "tool_call_id": "call-1", "content": "hi"}]
    reply = read_reply(httpx.post(f"{base}/chat/completions", json=body), False)
    assert [c.name for c in reply.toolCalls] == ["tck_caf_"]
    second = gateway.requests("child-1")[1]
    assert [c.name for c in second.messages[1].toolCalls] == ["echo"]
    assert route.told == {"echo": "child-1", "café": "child-1"}


def test_a_call_of_an_opencode_tool_the_request_did_not_offer_keeps_opencodes_name(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    route = Route(url, no_driver, tools=lambda: ["echo"])
    route.builtins = {"bash", "task", "write"}
    base = proxy.mount("d1", route)
    gateway.script("delegate", call("task", {"prompt": "p"}))
    body = chat(agent_marker("child-1"), "delegate", ["tck_echo"], True)
    reply = read_reply(httpx.post(f"{base}/chat/completions", json=body), True)
    assert [c.name for c in reply.toolCalls] == ["task"]


def test_a_kit_tool_named_like_another_kit_tools_wire_name_comes_back_under_its_own(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    route = Route(url, no_driver, tools=lambda: ["x", "tck_x"])
    base = proxy.mount("d1", route)
    gateway.script("go", call("tck_x", {}), call("x", {}, "call-2"))
    body = chat(agent_marker("child-1"), "go", ["tck_x", "tck_tck_x"], False)
    first = read_reply(httpx.post(f"{base}/chat/completions", json=body), False)
    assert [t.name for t in gateway.requests("child-1")[0].tools] == ["x", "tck_x"]
    second = read_reply(httpx.post(f"{base}/chat/completions", json=body), False)
    assert [c.name for c in first.toolCalls + second.toolCalls] == ["tck_tck_x", "tck_x"]


def test_a_kit_tool_named_like_an_opencode_built_in_comes_back_as_the_kits_tool(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    route = Route(url, no_driver, tools=lambda: ["read"])
    route.builtins = {"bash", "read", "task", "write"}  # what the probe finds
    base = proxy.mount("d1", route)
    gateway.script("go read", call("read", {"path": "/x"}))
    body = chat(agent_marker("child-1"), "go read", ["tck_read", "task"], True)
    reply = read_reply(httpx.post(f"{base}/chat/completions", json=body), True)
    assert [t.name for t in gateway.requests("child-1")[0].tools] == ["read", "task"]
    assert [c.name for c in reply.toolCalls] == ["tck_read"]


def test_an_unmarked_request_is_refused_by_the_kit_and_the_refusal_relayed(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    route = Route(url, no_driver, tools=lambda: ["echo"])
    base = proxy.mount("d1", route)
    answer = httpx.post(f"{base}/chat/completions",
                        json=chat("a title generator", "name this", ["tck_echo"], False))
    assert answer.status_code == 403 and "marker" in answer.json()["error"]["message"]
    assert len(gateway.unattributed) == 1 and route.last == {} and route.told == {}


def test_a_wrong_path_a_get_or_an_unknown_deployment_is_answered_404(proxy: Proxy) -> None:
    base = proxy.mount("d1", Route("http://127.0.0.1:9/d/g1", no_driver, tools=lambda: []))
    for method, target in (("POST", f"{proxy.url}/elsewhere"),
                           ("POST", f"{base}/messages"),
                           ("POST", f"{proxy.url}/p/d1/chat/completions"),
                           ("GET", f"{base}/chat/completions"),
                           ("POST", f"{proxy.url}/p/nope/v1/chat/completions")):
        answer = httpx.request(method, target, json={"messages": []})
        assert answer.status_code == 404, (method, target)
        assert answer.json()["error"]["type"] == "invalid_request_error"
    assert "nope" in answer.json()["error"]["message"]
    proxy.unmount("d1")
    gone = httpx.post(f"{base}/chat/completions", json={"messages": []})
    assert gone.status_code == 404


@pytest.mark.parametrize("data", [
    b"not json", b"[]", b'{"messages": "hi"}', b'{"messages": [{"role": "robot"}]}',
    b'{"messages": [], "tools": [{"function": {}}]}', b"[" * 100 + b"]" * 100,
])
def test_a_body_that_is_not_chat_completions_is_answered_400(proxy: Proxy, data: bytes) -> None:
    base = proxy.mount("d1", Route("http://127.0.0.1:9/d/g1", no_driver, tools=lambda: []))
    answer = httpx.post(f"{base}/chat/completions", content=data,
                        headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize("user", ["[subagent-tck start=s1]", "[subagent-tck probe]"])
def test_a_start_or_probe_whose_stream_flag_is_off_the_shape_is_answered_400(
        proxy: Proxy, user: str) -> None:
    base = proxy.mount("d1", Route("http://127.0.0.1:9/d/g1",
                                   lambda request, token: ModelReply(text="x"),
                                   tools=lambda: []))
    answer = httpx.post(f"{base}/chat/completions",
                        json={"messages": [{"role": "user", "content": user}], "stream": "yes"})
    assert answer.status_code == 400


def test_an_unreachable_gateway_is_answered_502_without_retry(proxy: Proxy) -> None:
    base = proxy.mount("d1", Route("http://127.0.0.1:9/d/g1", no_driver, tools=lambda: []))
    answer = httpx.post(f"{base}/chat/completions",
                        json=chat(agent_marker("child-1"), "hi", [], False))
    assert answer.status_code == 502 and answer.headers["x-should-retry"] == "false"


def test_a_history_with_tool_calls_that_are_no_list_is_left_as_it_is() -> None:
    body: dict[str, Any] = {"messages": [{"role": "system", "content": "s", "tool_calls": 5},
                                         {"role": "user", "content": "hi"}]}
    to_kit(body, {"tck_a": "a"})
    assert body["messages"][0]["tool_calls"] == 5


def test_a_request_from_a_presets_definition_is_attributed_to_the_start_that_runs_it(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    """A start's child runs from its preset's definition (no fresh file, no reload of
    opencode's configuration): its marker is the preset's, and the endpoint puts the start's
    child's marker in its place, so the kit's gateway attributes the request to the child."""
    gateway, url = kit
    route = Route(url, no_driver, tools=lambda: ["echo"],
                  attribute=lambda agent: "child-1" if agent == "preset:P" else agent)
    base = proxy.mount("d1", route)
    system = "persona" + agent_marker("preset:P") + "\nYou are powered by ..."
    httpx.post(f"{base}/chat/completions", json=chat(system, "go", ["tck_echo"], False))
    [request] = gateway.requests("child-1")
    assert request.system == find_marker(system)[1]
    assert set(route.last) == {"child-1"}


@given(st.sampled_from(MODEL_ROUTES),
       st.text(st.characters(categories=["L", "N", "P"]), min_size=1, max_size=12),
       st.text(st.characters(categories=["L", "N", "P"]), min_size=1, max_size=12))
def test_a_model_is_declared_under_the_provider_and_named_by_the_childs_agent(
        route: str, preset_model: str, request_model: str) -> None:
    """opencode runs an agent on a model its configuration lists (docs/opencode.md, the
    mapping): the deployment's model is opencode.json's ``model`` (``tck/NAME``), every model
    a run may name is declared under the provider, a preset's model is its agent's, and a start
    whose model is not its preset's (the request's own, which wins: docs/rules.md#MO-01) gets a
    fresh agent on that model, marked with the child's own id; a child composed without one
    names none (opencode runs it on its parent's)."""
    from opencode_adapter import target

    from subagent_tck.conformance.core.protocol import DeploymentConfig, PresetSpec, StartRequest
    from subagent_tck.spec import Capability, ErrorCode, TckError

    proxy = Proxy()
    config = DeploymentConfig(presets=[PresetSpec(name="p", model=preset_model)],
                              model="root-model")
    deployment = target.OpencodeDeployment(config, "http://127.0.0.1:9/d/g1", proxy, "d1", [])
    try:
        assert Capability.MODEL_SELECTION in deployment.providers()[0].capabilities
        definition, want = model_start(deployment, route, preset_model, request_model)
        assert front_lines(definition, "model") == (
            [] if want is None else [f"model: {json.dumps('tck/' + want)}"])
        fresh = route == "request" or (route == "both" and request_model != preset_model)
        assert (agent_marker("child-1") in definition) is fresh
        declared = json.loads((deployment.project / "opencode.json").read_text("utf-8"))
        assert declared["model"] == "tck/root-model"
        assert {"root-model", preset_model} | ({want} if want else set()) <= set(
            declared["provider"]["tck"]["models"])
        with pytest.raises(TckError) as bad:
            deployment.start(StartRequest(parent="root", provider=deployment.provider,
                                          prompt="go", model=""))
        assert bad.value.code is ErrorCode.INVALID_REQUEST
    finally:
        deployment.close()
        proxy.close()


def test_a_preset_with_tools_of_its_own_is_refused_by_an_adapter_that_writes_none() -> None:
    """opencode's adapter declares no ``presetTools``: a preset that carries tools anyway is
    refused when deployed, with UNSUPPORTED_OPERATION, before anything is made."""
    from opencode_adapter import target

    from subagent_tck.conformance.core.protocol import DeploymentConfig, PresetSpec, ToolSpec
    from subagent_tck.spec import ErrorCode, TckError

    config = DeploymentConfig(presets=[PresetSpec(name="p", tools=[ToolSpec(name="own")])])
    proxy = Proxy()
    try:
        with pytest.raises(TckError) as refused:
            target.OpencodeDeployment(config, "http://127.0.0.1:9/d/g1", proxy, "d1", [])
    finally:
        proxy.close()
    assert refused.value.code is ErrorCode.UNSUPPORTED_OPERATION
    assert "tools that a preset gives its children" in refused.value.message
