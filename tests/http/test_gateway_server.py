"""The model gateway over HTTP: the Chat Completions mapping and the kit's server
(conformance/transports/gateway_server.py)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from http_helpers import model_requests, tool_calls, words
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core.gateway import Gateway, call, text
from subagent_tck.conformance.core.protocol import (
    Message,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolSchema,
)
from subagent_tck.conformance.transports.gateway_chat import (
    MODEL_NAME,
    ChatShapeError,
    chat_to_reply,
    chat_to_request,
    reply_to_chat,
    request_to_chat,
)
from subagent_tck.conformance.transports.gateway_server import (
    GatewayClient,
    GatewayFailure,
    GatewayServer,
)
from subagent_tck.spec import StopReason

calls = tool_calls(words)
requests = model_requests(
    calls, model=st.none() | words.filter(lambda m: m not in ("", MODEL_NAME)))
replies = st.builds(ModelReply, text=st.none() | words, toolCalls=calls,
                    stopReason=st.sampled_from(list(StopReason)))


@settings(max_examples=60)
@given(requests)
def test_a_model_request_survives_the_chat_completions_wire(request: ModelRequest) -> None:
    body = json.loads(json.dumps(request_to_chat(request)))
    assert chat_to_request(request.agent, body) == request


@settings(max_examples=60)
@given(replies)
def test_a_model_reply_survives_the_chat_completions_wire(reply: ModelReply) -> None:
    assert chat_to_reply(json.loads(json.dumps(reply_to_chat(reply)))) == reply


def test_the_request_has_the_openai_shape() -> None:
    request = ModelRequest(agent="a", system="sys", messages=[Message(role="user", content="hi")],
                           tools=[ToolSchema(name="read", parameters={"type": "object"})],
                           context=["work directly"])
    body = request_to_chat(request)
    assert body["messages"][0] == {"role": "system", "content": "sys"}
    assert body["messages"][-1] == {"role": "user", "content": "[runtime-context] work directly"}
    assert body["tools"] == [{"type": "function", "function": {
        "name": "read", "description": "", "parameters": {"type": "object"}}}]
    reply = reply_to_chat(call("read", {"path": "x"}))
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["tool_calls"][0]["function"] == {"name": "read",
                                                               "arguments": '{"path": "x"}'}


@given(st.sampled_from([MODEL_NAME, "", None, 7, ["m"]]))
def test_the_placeholder_model_or_none_is_recorded_as_no_model_reported(value: object) -> None:
    body = {"model": value, "messages": [{"role": "user", "content": "hi"}]}
    assert chat_to_request("a", body).model is None
    assert request_to_chat(ModelRequest(agent="a", system="", tools=[], messages=[]))["model"] \
        == MODEL_NAME


def test_what_an_openai_client_sends_is_understood() -> None:
    body = {"model": "gpt-x", "stream": False, "messages": [
        {"role": "developer", "content": [{"type": "text", "text": "be "}, {"type": "text",
                                                                            "text": "brief"}]},
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "file text"},
        {"role": "system", "content": "[runtime-context]at the cap: work directly"},
    ], "tools": [{"type": "function", "function": {"name": "read"}}], "temperature": 0}
    request = chat_to_request("agent-7", body)
    assert request.model == "gpt-x"
    assert request.system == "be brief" and request.context == ["at the cap: work directly"]
    assert [m.role for m in request.messages] == ["user", "assistant", "tool"]
    assert request.messages[1].toolCalls == [ToolCall(id="c1", name="read", arguments={})]
    assert request.tools == [ToolSchema(name="read")]


@pytest.mark.parametrize("body", [
    {"messages": "x"}, {"messages": [{"role": "robot"}]},
    {"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "a",
                                                                     "arguments": "{"}}]}]},
    {"messages": [], "tools": [{"type": "function"}]}, [],
])
def test_a_request_off_the_chat_completions_shape_is_refused(body: object) -> None:
    with pytest.raises(ChatShapeError):
        chat_to_request("a", body)


@pytest.mark.parametrize(("call", "got"), [
    ({"id": "c1", "function": {"name": "read", "arguments": "{}"}}, "type None, id 'c1'"),
    ({"id": "c1", "type": "tool", "function": {"name": "read", "arguments": "{}"}},
     "type 'tool', id 'c1'"),
    ({"type": "function", "function": {"name": "read", "arguments": "{}"}},
     "type 'function', id None"),
])
def test_a_call_in_the_history_without_its_id_or_function_type_is_refused_naming_both(
        call: dict[str, object], got: str) -> None:
    # as a Chat Completions endpoint refuses it: a runtime that drops them talks to no model
    # but this gateway (docs/driver-api.md "Model gateway")
    body = {"messages": [{"role": "user", "content": "go"},
                         {"role": "assistant", "content": None, "tool_calls": [call]}]}
    with pytest.raises(ChatShapeError) as caught:
        chat_to_request("a", body)
    assert str(caught.value) == (
        'messages[1].tool_calls[0] must be {id: string, type: "function", function: {name, '
        f"arguments}}}}: got {got}")


@pytest.mark.parametrize(("history", "answers"), [
    ([], "'c1'"),  # the assistant's call dropped from the history
    ([{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{}"}}]}],
     "'c1'"),
    ([{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]}],
     None),
])
def test_a_tool_result_that_answers_no_earlier_call_is_refused(
        history: list[dict[str, object]], answers: str | None) -> None:
    result: dict[str, object] = {"role": "tool", "content": "ok"}
    if answers is not None:
        result["tool_call_id"] = "c1"
    body = {"messages": [{"role": "user", "content": "go"}, *history, result]}
    with pytest.raises(ChatShapeError) as caught:
        chat_to_request("a", body)
    assert str(caught.value) == (f"messages[{1 + len(history)}].tool_call_id {answers} answers "
                                 "no tool call an earlier assistant message made")


@pytest.mark.parametrize(("calls", "why"), [
    ([], "messages[1].tool_calls is an empty list: leave it out of an assistant message that "
         "made no call"),
    ([{"id": "c1", "type": "function", "function": {"name": "read"}}],
     "messages[1].tool_calls[0].function.arguments must be the JSON text of the call's "
     "arguments: got NoneType"),
    ([{"id": "c1", "type": "function", "function": {"name": "read", "arguments": {"a": 1}}}],
     "messages[1].tool_calls[0].function.arguments must be the JSON text of the call's "
     "arguments: got dict"),
])
def test_a_history_call_list_empty_or_with_arguments_not_json_text_is_refused(
        calls: list[dict[str, object]], why: str) -> None:
    # as a Chat Completions endpoint refuses them (docs/driver-api.md "Model gateway")
    body = {"messages": [{"role": "user", "content": "go"},
                         {"role": "assistant", "content": "hm", "tool_calls": calls}]}
    with pytest.raises(ChatShapeError) as caught:
        chat_to_request("a", body)
    assert str(caught.value) == why


@pytest.mark.parametrize("body", [
    {}, {"choices": []}, {"choices": [{"message": "x"}]},
    {"choices": [{"message": {}, "finish_reason": "exploded"}]},
])
def test_an_answer_off_the_chat_completions_shape_is_refused(body: object) -> None:
    with pytest.raises(ChatShapeError):
        chat_to_reply(body)


@pytest.fixture
def server() -> Iterator[GatewayServer]:
    gateway_server = GatewayServer(reply_timeout=0.5).start()
    yield gateway_server
    gateway_server.close()


@pytest.mark.parametrize("agent", ["agent-1", "agent/1", "a b?c#d", "агент", "%41"])
def test_the_agent_id_in_the_path_attributes_the_request(server: GatewayServer,
                                                         agent: str) -> None:
    gateway = Gateway()
    gateway.script("MARK", text("scripted"))
    client = GatewayClient(server.mount(gateway))
    request = ModelRequest(agent=agent, system="s", tools=[],
                           messages=[Message(role="user", content="MARK")])
    assert client.complete(request) == text("scripted")
    assert gateway.requests(agent) == [request]
    client.close()


def test_each_deployment_has_its_own_gateway_url(server: GatewayServer) -> None:
    first, second = Gateway(), Gateway()
    urls = [server.mount(first), server.mount(second)]
    assert urls[0] != urls[1] and all(u.startswith("http://127.0.0.1:") for u in urls)
    request = ModelRequest(agent="a", system="", tools=[], messages=[])
    GatewayClient(urls[1]).complete(request)
    assert (len(first.exchanges), len(second.exchanges)) == (0, 1)
    server.unmount(urls[1])
    with pytest.raises(GatewayFailure, match="404"):
        GatewayClient(urls[1]).complete(request)


def test_a_stalled_script_fails_the_model_call_within_the_reply_timeout(
    server: GatewayServer,
) -> None:
    release = threading.Event()

    def stall(request: ModelRequest) -> ModelReply:
        release.wait(30)
        return text("too late")

    gateway = Gateway()
    gateway.script("STALL", stall)
    client = GatewayClient(server.mount(gateway))
    began = time.monotonic()
    with pytest.raises(GatewayFailure, match="stalled"):
        client.complete(ModelRequest(agent="a", system="", tools=[],
                                     messages=[Message(role="user", content="STALL")]))
    assert time.monotonic() - began < 5
    release.set()


def test_a_failing_hook_fails_the_model_call_with_its_message(server: GatewayServer) -> None:
    def broken(request: ModelRequest) -> ModelReply:
        raise ValueError("hook bug")

    gateway = Gateway()
    gateway.script("X", broken)
    with pytest.raises(GatewayFailure, match=r"^hook bug$"):
        GatewayClient(server.mount(gateway)).complete(ModelRequest(
            agent="a", system="", tools=[], messages=[Message(role="user", content="X")]))


class _Fault(BaseException):
    """Stands for engine/faults.py's TargetFault: a BaseException, past every ``except
    Exception``."""


def test_a_step_that_meets_a_fault_of_the_target_is_answered_and_kept_for_its_check(
    server: GatewayServer, capsys: pytest.CaptureFixture[str],
) -> None:
    # Claude Code 2.1.19 under the kit: a step registering a tool mid-run met an adapter that
    # had exited; the fault ended the server's thread with a traceback on the terminal, and
    # the check never knew why its run was cut short
    def broken(request: ModelRequest) -> ModelReply:
        raise _Fault("register_tool: the target closed the connection")

    gateway = Gateway()
    gateway.script("X", broken)
    client = GatewayClient(server.mount(gateway))
    request = ModelRequest(agent="a", system="", tools=[],
                           messages=[Message(role="user", content="X")])
    with pytest.raises(GatewayFailure, match="met a fault of the target"):
        client.complete(request)
    assert [type(f) for f in gateway.faults] == [_Fault]
    assert gateway.requests("a") == [request] and gateway.exchanges[-1].failed
    assert client.complete(request) == Gateway().complete(request)  # the server still serves
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("content", [b"{", b'{"messages": 3}', b'{"messages": [], "stream": "yes"}',
                                     b'{"messages": [], "stream": true, "stream_options": 1}'])
def test_the_server_answers_a_malformed_request_with_an_openai_error(
    server: GatewayServer, content: bytes
) -> None:
    gateway = Gateway()
    url = server.mount(gateway) + "/agents/a/v1/chat/completions"
    answer = httpx.post(url, content=content, trust_env=False)
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"
    # kept on the record: a check whose run then failed names it as a cause
    (reason,) = gateway.off_shape
    assert reason.startswith("not a Chat Completions request: ")
    assert gateway.transcript()[-1] == {"off_shape": reason}


def test_the_gateway_listens_on_loopback_only(server: GatewayServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")


# --- one base URL for every agent: attribution by marker ---------------------------------


def _marked(system: str, user: str = "hi") -> dict[str, object]:
    return {"model": "m", "stream": True, "messages": [
        {"role": "system", "content": system}, {"role": "user", "content": user}]}


def test_a_chat_completion_on_the_shared_url_is_attributed_by_its_agent_marker(
        server: GatewayServer) -> None:
    from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
    from subagent_tck.conformance.transports.gateway_chat_stream import stream_to_reply

    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: agent == "child/1")
    gateway.script("MARK", text("scripted"))
    body = _marked(f"You are the reader persona. {agent_marker('child/1')}\nEnv: x", "MARK")
    answer = httpx.post(f"{base}/v1/chat/completions", json=body, trust_env=False)
    assert answer.status_code == 200 and stream_to_reply(answer.text) == text("scripted")
    [request] = gateway.requests("child/1")
    assert request.system == "You are the reader persona.\nEnv: x"


@pytest.mark.parametrize(("system", "why"), [
    ("You are a title generator.", "no agent marker"),
    ("[subagent-tck agent=a] [subagent-tck agent=b]", "several agents"),
    ("[subagent-tck agent=ghost]", "never reported"),
])
def test_a_chat_completion_on_the_shared_url_without_one_reported_agents_marker_is_refused(
        server: GatewayServer, system: str, why: str) -> None:
    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: agent in ("a", "b"))
    answer = httpx.post(f"{base}/v1/chat/completions", json=_marked(system), trust_env=False)
    assert answer.status_code == 403 and answer.json()["error"]["type"] == "permission_error"
    assert why in answer.json()["error"]["message"] and gateway.exchanges == []
    [refused] = gateway.unattributed
    assert why in refused.reason and "/v1/messages" not in refused.reason
