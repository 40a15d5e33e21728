"""The model gateway over HTTP: OpenAI Chat Completions (streaming or not) on 127.0.0.1.

Kit side, :class:`GatewayServer` serves each deployment's :class:`~.gateway.Gateway` at its own
base URL (the ``gatewayUrl`` the target learns when the deployment is created); an agent posts
to ``{gatewayUrl}/agents/{agentId}/v1/chat/completions``: the agent id in the path is the
attribution the FR and ST checks read (what a child's first request carried). A runtime that
gives every agent one base URL posts ``{gatewayUrl}/v1/chat/completions`` instead, attributed by
the agent marker in its system text (:func:`.gateway_anthropic.find_marker`). Target side,
:class:`GatewayClient` is a Gateway that forwards over that wire, so an in-process runtime served
by :mod:`.http_server` talks to the kit's model as a remote runtime would.

The mapping between :class:`~.protocol.ModelRequest`/:class:`~.protocol.ModelReply` and the
Chat Completions shape is documented in docs/driver-api.md ("Model gateway"): runtime-context
notices (ST-08) are user messages prefixed ``[runtime-context] ``; the stop reasons ``error``
and ``aborted`` travel as the extension ``finish_reason`` values of the same names. A
``stream: true`` request is answered with the same reply as ``chat.completion.chunk`` events
(:mod:`.gateway_chat_stream`).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable
from itertools import accumulate
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from subagent_tck.spec import StopReason

from ..core.gateway import Gateway
from ..core.protocol import Message, ModelReply, ModelRequest, ToolCall, ToolSchema
from .connections import Connections, ExchangeError
from .httpd import Answer, Request, ServerThread, foreign
from .loopback import Stalled, call_with_timeout
from .wire import MAX_BODY

CONTEXT_PREFIX = "[runtime-context]"
MODEL_NAME = "subagent-tck"
CHAT_PATH = "/v1/chat/completions"
#: The deepest nesting of arrays and objects a chat completion body may have (a real one has
#: about six levels; tool parameter schemas add a few).
MAX_DEPTH = 64

#: Whether the target reported an agent id (see GatewayServer.mount).
Known = Callable[[str], bool]

_FINISH = {
    StopReason.MAX_TOKENS: "length",
    StopReason.REFUSAL: "content_filter",
    StopReason.ERROR: "error",
    StopReason.ABORTED: "aborted",
}
_STOP = {"stop": StopReason.COMPLETED, "tool_calls": StopReason.COMPLETED,
         "function_call": StopReason.COMPLETED, **{v: k for k, v in _FINISH.items()}}


class ChatShapeError(ValueError):
    """A chat completion body that does not have the OpenAI shape (the message says where)."""


# --- the mapping -----------------------------------------------------------------------


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content)


def _call_json(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}


def request_to_chat(request: ModelRequest) -> dict[str, Any]:
    """A ModelRequest as a Chat Completions request body."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
    for message in request.messages:
        item: dict[str, Any] = {"role": message.role}
        if message.role == "assistant":
            item["content"] = None if message.content is None else _text(message.content)
            if message.toolCalls:
                item["tool_calls"] = [_call_json(c) for c in message.toolCalls]
        else:
            item["content"] = "" if message.content is None else _text(message.content)
        if message.role == "tool":
            item["tool_call_id"] = message.toolCallId or ""
            if message.isError:
                item["is_error"] = True
        messages.append(item)
    messages += [{"role": "user", "content": f"{CONTEXT_PREFIX} {notice}"}
                 for notice in request.context]
    body: dict[str, Any] = {"model": request.model or MODEL_NAME, "messages": messages}
    if request.tools:
        body["tools"] = [{"type": "function", "function": {
            "name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in request.tools]
    return body


def _content(value: Any, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts: keep the text ones
        texts = [p.get("text", "") for p in value if isinstance(p, dict)]
        return "".join(t for t in texts if isinstance(t, str))
    raise ChatShapeError(f"{where}.content must be a string, null or a list of parts")


def _tool_calls(value: Any, where: str) -> list[ToolCall]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ChatShapeError(f"{where}.tool_calls must be a list")
    calls = []
    for i, item in enumerate(value):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise ChatShapeError(f"{where}.tool_calls[{i}] needs function.name")
        raw = function.get("arguments") or "{}"
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            raise ChatShapeError(f"{where}.tool_calls[{i}].function.arguments is not JSON") \
                from None
        if not isinstance(arguments, dict):
            raise ChatShapeError(f"{where}.tool_calls[{i}].function.arguments is not an object")
        ident = item.get("id")
        calls.append(ToolCall(id=ident if isinstance(ident, str) else f"call-{i}",
                              name=function["name"], arguments=arguments))
    return calls


def chat_to_request(agent: str, body: Any) -> ModelRequest:
    """A Chat Completions request body, sent by ``agent``, as a ModelRequest."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise ChatShapeError("the body must be an object with a messages list")
    raw = body["messages"]
    system = ""
    first = 0
    if raw and isinstance(raw[0], dict) and raw[0].get("role") in ("system", "developer"):
        system = _content(raw[0].get("content"), "messages[0]") or ""
        first = 1
    messages: list[Message] = []
    context: list[str] = []
    for i, item in enumerate(raw[first:], start=first):
        where = f"messages[{i}]"
        if not isinstance(item, dict):
            raise ChatShapeError(f"{where} must be an object")
        role = "system" if item.get("role") == "developer" else item.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            raise ChatShapeError(f"{where}.role {role!r} is not system, user, assistant or tool")
        content = _content(item.get("content"), where)
        if role in ("user", "system") and content and content.startswith(CONTEXT_PREFIX):
            notice = content[len(CONTEXT_PREFIX):]  # one separating space, the rest is text
            context.append(notice[1:] if notice.startswith(" ") else notice)
            continue
        messages.append(Message(
            role=role, content=content, toolCalls=_tool_calls(item.get("tool_calls"), where),
            toolCallId=item.get("tool_call_id") if role == "tool" else None,
            isError=bool(item.get("is_error", False)) if role == "tool" else False))
    tools = []
    for i, tool in enumerate(body.get("tools") or []):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise ChatShapeError(f"tools[{i}] must be {{type: function, function: {{name}}}}")
        parameters = function.get("parameters")
        tools.append(ToolSchema(name=function["name"],
                                description=function.get("description") or "",
                                parameters=parameters if isinstance(parameters, dict) else {}))
    return ModelRequest(agent=agent, system=system, tools=tools, messages=messages,
                        context=context, model=reported_model(body.get("model")))


def reported_model(value: Any) -> str | None:
    """The model the runtime asked for; the placeholder :data:`MODEL_NAME` (what a runtime that
    chooses no model sends) and an empty or non-string value are no model reported."""
    return value if isinstance(value, str) and value and value != MODEL_NAME else None


def streaming(body: dict[str, Any]) -> tuple[bool, bool]:
    """``(stream, include_usage)`` of a request body: whether it asked for a stream, and a
    usage chunk in it (``stream_options.include_usage``); ChatShapeError when ``stream`` or
    ``stream_options`` is off the OpenAI shape."""
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise ChatShapeError("stream must be true, false or null")
    options = body.get("stream_options")
    if options is None:
        return stream is True, False
    usage = options.get("include_usage") if isinstance(options, dict) else False
    if not isinstance(options, dict) or (usage is not None and not isinstance(usage, bool)):
        raise ChatShapeError("stream_options must be an object whose include_usage is a boolean")
    return stream is True, stream is True and usage is True


_ids = itertools.count(1)


def finish_reason(reply: ModelReply) -> str:
    """The ``finish_reason`` of ``reply`` (streamed or not)."""
    return _FINISH.get(reply.stopReason, "tool_calls" if reply.toolCalls else "stop")


def reply_to_chat(reply: ModelReply, model: str = MODEL_NAME) -> dict[str, Any]:
    """A ModelReply as a Chat Completions response body."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.toolCalls:
        message["tool_calls"] = [_call_json(c) for c in reply.toolCalls]
    return {"id": f"chatcmpl-tck-{next(_ids)}", "object": "chat.completion", "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(reply)}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def chat_to_reply(body: Any) -> ModelReply:
    """A Chat Completions response body as a ModelReply."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ChatShapeError("the answer has no choices[0]")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ChatShapeError("choices[0].message must be an object")
    finish = choices[0].get("finish_reason") or "stop"
    if finish not in _STOP:
        raise ChatShapeError(f"choices[0].finish_reason {finish!r} is unknown")
    return ModelReply(text=_content(message.get("content"), "choices[0].message"),
                      toolCalls=_tool_calls(message.get("tool_calls"), "choices[0].message"),
                      stopReason=_STOP[finish])


# --- the kit's server ------------------------------------------------------------------

_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _STEP)
_BLOCK = 1 << 16


def nesting(data: bytes, limit: int = MAX_DEPTH) -> int:
    """How deep arrays and objects nest in the JSON text ``data``, brackets inside strings
    aside; counting stops soon after the depth passes ``limit`` (the result is then over it).

    Without parsing and without a regular expression (no backtracking): escaped backslashes and
    quotes are dropped, the text is split at its quotes (every other piece is outside strings)
    and the brackets left are summed in C-speed blocks."""
    plain = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = b"".join(plain.split(b'"')[::2]).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for start in range(0, len(brackets), _BLOCK):
        levels = list(accumulate(map(_STEP.__getitem__, brackets[start:start + _BLOCK]),
                                 initial=depth))
        deepest, depth = max(deepest, *levels), levels[-1]
        if deepest > limit:
            break
    return deepest


def parse_chat(data: bytes) -> Any:
    """A chat completion body as JSON; ValueError (its message says why) when it is not JSON,
    or nests deeper than MAX_DEPTH."""
    opening = data.count(b"[") + data.count(b"{")  # a bound of the depth, at C speed
    if opening > MAX_DEPTH and nesting(data) > MAX_DEPTH:
        raise ValueError(f"the body nests arrays and objects deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(data or b"null")
    except RecursionError:
        raise ValueError("the body nests too deeply") from None


def _error(status: int, message: str, kind: str = "invalid_request_error") -> Answer:
    return _json({"error": {"message": message, "type": kind, "code": None}}, status)


def _no_retry(answer: Answer) -> Answer:
    """``answer`` with ``x-should-retry: false``: OpenAI's clients retry a 5xx, which would take
    the script's next reply for a failure the script meant (a hook that raised, a stall)."""
    return answer._replace(headers=(*answer.headers, ("x-should-retry", "false")))


def _json(value: Any, status: int = 200) -> Answer:
    return Answer(status, json.dumps(value, ensure_ascii=False, allow_nan=False,
                                     separators=(",", ":")).encode("utf-8"))


class GatewayServer:
    """Serves mounted gateways on 127.0.0.1 (one server per target, one mount per deployment).

    A reply that does not come within ``reply_timeout`` seconds (a stalled script) is answered
    with HTTP 504, so the target's run ends instead of hanging. An exception raised by a
    scripted hook is answered with HTTP 500 and its message: the target's model call fails, as
    it fails in-process when the hook raises inside the runtime's model call.
    """

    def __init__(self, reply_timeout: float = 30.0) -> None:
        self.reply_timeout = reply_timeout
        self._lock = threading.Lock()
        self._mounts: dict[str, tuple[Gateway, Known | None]] = {}
        self._names = itertools.count(1)
        self.calls = 0  # requests answered with a reply (for benchmarks and diagnostics)
        self._thread = ServerThread(self, name="subagent-tck gateway")
        self.url = self._thread.url
        self._started = False

    def start(self) -> GatewayServer:
        if not self._started:
            self._thread.start()
            self._started = True
        return self

    def mount(self, gateway: Gateway, known: Known | None = None) -> str:
        """Serve ``gateway``; returns its base URL (the deployment's ``gatewayUrl``).

        ``known(agent)`` says whether the target reported that agent id (in a result, its
        agent list or its events): a request for any other id is refused with 403 and recorded
        as unattributed (:meth:`~.gateway.Gateway.refuse`), so a target cannot post a request
        in the name of an agent it never published. None: every id is accepted.
        """
        self.start()
        with self._lock:
            name = f"g{next(self._names)}"
            self._mounts[name] = (gateway, known)
        return f"{self.url}/d/{name}"

    def unmount(self, base: str) -> None:
        name = base.rstrip("/").rsplit("/", 1)[-1]
        with self._lock:
            self._mounts.pop(name, None)

    def close(self) -> None:
        if self._started:
            self._thread.stop()
            self._started = False

    # --- the route (httpd.App): POST /d/{mount}/agents/{agent}/v1/chat/completions -------

    def handle(self, request: Request) -> Answer:
        path = request.path
        parts = path.split("/", 3)  # "", "d", mount, the rest
        if len(parts) == 4 and parts[1] == "d":
            from . import gateway_anthropic  # (it imports this module's mapping helpers)
            found = gateway_anthropic.route("/" + parts[3])
            if found is not None:
                return self._messages(request, unquote(parts[2]), *found)
            if "/" + parts[3] == CHAT_PATH:  # one base URL for every agent: by marker
                return self._chat(request, unquote(parts[2]), None)
        parts = path.split("/", 4)  # "", "d", mount, "agents", "{agent}/v1/chat/completions"
        if (len(parts) < 5 or parts[1] != "d" or parts[3] != "agents"
                or not parts[4].endswith(CHAT_PATH) or len(parts[4]) == len(CHAT_PATH)):
            return _error(404, f"{path} is not a chat completions route of the kit's gateway: "
                          f"use {{gatewayUrl}}/agents/{{agentId}}{CHAT_PATH}")
        return self._chat(request, unquote(parts[2]), unquote(parts[4][:-len(CHAT_PATH)]))

    def _chat(self, request: Request, name: str, agent: str | None) -> Answer:
        """A chat completion: ``agent`` from the path, or None to attribute the request by the
        agent marker in its system text (as for Anthropic Messages, which cuts it out)."""
        if request.method != "POST":
            return _error(405, f"{request.method} is not allowed: POST a chat completion")
        why = foreign(request)
        if why is not None:
            return _error(403, why)
        with self._lock:
            mount = self._mounts.get(name)
        if mount is None:
            return _error(404, f"no deployment is served at /d/{name} (it was closed)")
        gateway, known = mount
        try:
            body = parse_chat(request.body)
            model_request = chat_to_request(agent or "", body)
            stream, usage = streaming(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return _error(400, f"not a Chat Completions request: {exc}")
        if agent is None:
            from .gateway_anthropic import find_marker
            agent, system, unmarked = find_marker(model_request.system)
            model_request = model_request.model_copy(update={"system": system,
                                                             "agent": agent or ""})
            if agent is None:
                reason = (unmarked or "not attributed").replace("/v1/messages", CHAT_PATH)
                gateway.refuse(model_request, reason)
                return _error(403, reason, "permission_error")
        if known is not None and not _reported(known, agent):
            reason = (f"the target never reported an agent {agent!r} (in a result, its agent "
                      "list or its events): post as the agents your API reports")
            gateway.refuse(model_request, reason)
            return _error(403, reason, "permission_error")
        try:
            reply = call_with_timeout(lambda: gateway.complete(model_request),
                                      self.reply_timeout)
        except Stalled:
            return _no_retry(_error(
                504, f"the scripted model stalled: no reply for agent {agent} within "
                f"{self.reply_timeout:g} s", "timeout"))
        except Exception as exc:
            return _no_retry(_error(500, str(exc) or type(exc).__name__, "server_error"))
        with self._lock:
            self.calls += 1
        model = body.get("model") if isinstance(body.get("model"), str) else MODEL_NAME
        if stream:
            from .gateway_chat_stream import reply_to_stream  # (it imports this module)
            return Answer(200, reply_to_stream(reply, model, usage).encode("utf-8"),
                          "text/event-stream", (("cache-control", "no-cache"),))
        return _json(reply_to_chat(reply, model))

    def _messages(self, request: Request, name: str, agent: str | None, kind: str) -> Answer:
        """The Anthropic Messages routes (conformance/transports/gateway_anthropic.py):
        ``agent`` from the path, or None to attribute the request by its agent marker."""
        from . import gateway_anthropic as anthropic
        if request.method != "POST":
            return anthropic.error(405, f"{request.method} is not allowed: POST a message")
        why = foreign(request)
        if why is not None:
            return anthropic.error(403, why, "permission_error")
        with self._lock:
            mount = self._mounts.get(name)
        if mount is None:
            return anthropic.error(404, f"no deployment is served at /d/{name} (it was closed)",
                                   "not_found_error")
        gateway, known = mount
        try:
            body = anthropic.parse(request.body)
            if kind == "count":
                return _json(anthropic.count_tokens(body))
            model_request = anthropic.messages_to_request(agent or "", body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return anthropic.error(400, f"not an Anthropic Messages request: {exc}")
        marked, system, unmarked = anthropic.find_marker(model_request.system)
        model_request = model_request.model_copy(update={"system": system})
        if agent is None:
            if marked is None:
                gateway.refuse(model_request, unmarked or "not attributed")
                return anthropic.error(403, unmarked or "not attributed", "permission_error")
            agent = marked
            model_request = model_request.model_copy(update={"agent": agent})
        if known is not None and not _reported(known, agent):
            reason = (f"the target never reported an agent {agent!r} (in a result, its agent "
                      "list or its events): plant the markers of the agents your API reports")
            gateway.refuse(model_request, reason)
            return anthropic.error(403, reason, "permission_error")
        try:
            reply = call_with_timeout(lambda: gateway.complete(model_request),
                                      self.reply_timeout)
        except Stalled:
            return anthropic.no_retry(anthropic.error(
                504, f"the scripted model stalled: no reply for agent {agent} within "
                f"{self.reply_timeout:g} s", "timeout_error"))
        except Exception as exc:
            return anthropic.no_retry(anthropic.error(500, str(exc) or type(exc).__name__,
                                                      "api_error"))
        with self._lock:
            self.calls += 1
        return anthropic.answer(reply, body)

    def refuse(self, status: int, message: str) -> Answer:
        """What the HTTP server itself refuses (not HTTP, a head or body over the limit)."""
        return _error(status, message, "server_error" if status >= 500 else
                      "invalid_request_error")


def _reported(known: Known, agent: str) -> bool:
    try:
        return known(agent)
    except Exception:  # asking the target failed: the id is not known to be reported
        return False


# --- the target's client ---------------------------------------------------------------


class GatewayFailure(RuntimeError):
    """The model call failed: the gateway was unreachable, failed, stalled or answered off
    the Chat Completions shape. The message is the gateway's (a scripted hook's exception
    message, as the runtime would see it in-process)."""


def model_connections(url: str, timeout: float) -> Connections:
    """Kept connections to the origin of the gateway at ``url`` (a deployment's ``gatewayUrl``),
    for :class:`GatewayClient`\\ s."""
    parts = urlsplit(url)
    return Connections(f"{parts.scheme}://{parts.netloc}", connect_timeout=min(5.0, timeout),
                       timeout=timeout, headers={"Content-Type": "application/json",
                                                 "Accept": "application/json"})


class GatewayClient(Gateway):
    """A Gateway whose ``complete`` asks the kit's model over HTTP at ``base_url``.

    ``connections``: kept connections to the gateway's origin, shared by the deployments of a
    server (made, and closed with this client, when not given). A failed call raises
    :class:`GatewayFailure` into the runtime, as a failing model client would. The kit's record
    is on the kit's side; this object records nothing.
    """

    def __init__(self, base_url: str, timeout: float = 120.0,
                 connections: Connections | None = None) -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        parts = urlsplit(self.base_url)
        self._path = parts.path
        self._owned = connections is None
        self._connections = connections or model_connections(base_url, timeout)

    def url_for(self, agent: str) -> str:
        return f"{self.base_url}/agents/{quote(agent, safe='')}{CHAT_PATH}"

    def complete(self, request: ModelRequest) -> ModelReply:
        path = f"{self._path}/agents/{quote(request.agent, safe='')}{CHAT_PATH}"
        body = json.dumps(request_to_chat(request)).encode("utf-8")
        try:
            status, data = self._connections.exchange(
                "POST", path, body, limit=MAX_BODY, deadline=time.monotonic() + self.timeout)
        except (ExchangeError, OSError) as exc:
            raise GatewayFailure(f"model gateway unreachable: {type(exc).__name__}: {exc}") \
                from None
        if status != 200:
            message = data[:500].decode("utf-8", "replace")
            with contextlib.suppress(ValueError, AttributeError, TypeError, KeyError):
                message = json.loads(data)["error"]["message"]
            if status == 500:
                raise GatewayFailure(message)
            raise GatewayFailure(f"model gateway answered HTTP {status}: {message}")
        try:
            return chat_to_reply(json.loads(data))
        except (ValueError, ChatShapeError) as exc:
            raise GatewayFailure(f"model gateway answered off the Chat Completions shape: "
                                 f"{exc}") from None

    def close(self) -> None:
        if self._owned:
            self._connections.close()
