"""The OpenAI Chat Completions dialect of the model gateway: how a
:class:`~..core.protocol.ModelRequest` and a :class:`~..core.protocol.ModelReply` read as chat
completion bodies, and how a body is parsed safely (docs/driver-api.md, "Model gateway").

A leaf of the gateway: the server (:mod:`.gateway_server`) and the other dialects
(:mod:`.gateway_anthropic`, :mod:`.gateway_chat_stream`) import it; it imports none of them.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

from subagent_tck.spec import StopReason

from ..core.protocol import Message, ModelReply, ModelRequest, ToolCall, ToolSchema

CONTEXT_PREFIX = "[runtime-context]"
MODEL_NAME = "subagent-tck"
CHAT_PATH = "/v1/chat/completions"
#: The deepest nesting of arrays and objects a chat completion body may have (a real one has
#: about six levels; tool parameter schemas add a few).
MAX_DEPTH = 64

#: The kit's own stop words for a turn that failed or was aborted, sent on Chat Completions and
#: Anthropic Messages (no stop word of theirs means "the turn failed/was aborted"): a kit client
#: reads them back; a runtime that does not know them stops its turn on an unknown reason.
KIT_STOPS = {StopReason.ERROR: "error", StopReason.ABORTED: "aborted"}


def read_back(sent: Mapping[StopReason, str], *completed: str) -> dict[str, StopReason]:
    """A wire's stop words as they read back: each of ``completed`` a completed turn, each word
    of ``sent`` (what the gateway sends for the other reasons) the reason it was sent for."""
    return {**dict.fromkeys(completed, StopReason.COMPLETED), **{v: k for k, v in sent.items()}}


_FINISH = {StopReason.MAX_TOKENS: "length", StopReason.REFUSAL: "content_filter", **KIT_STOPS}
_STOP = read_back(_FINISH, "stop", "tool_calls", "function_call")


class ChatShapeError(ValueError):
    """A chat completion body that does not have the OpenAI shape (the message says where)."""


# --- the mapping -----------------------------------------------------------------------


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content)


def as_text(content: Any) -> str:
    """A message's content as the text a wire carries: none as empty, a value other than a
    string as JSON."""
    return "" if content is None else _text(content)


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


def _tool_calls(value: Any, where: str, history: bool = False) -> list[ToolCall]:
    """The tool calls of a message. In a request's history (``history``) each is what the
    model was answered, and must be sent back as Chat Completions defines an assistant
    message's call: ``{id: string, type: "function", function: {name, arguments}}``, its
    arguments the JSON text the model gave, in a non-empty list (a model endpoint refuses a
    call without them, and an empty list; a runtime that sends them so talks to this gateway
    alone)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ChatShapeError(f"{where}.tool_calls must be a list")
    if history and not value:
        # an assistant message that made no call has no tool_calls (an endpoint refuses [])
        raise ChatShapeError(f"{where}.tool_calls is an empty list: leave it out of an "
                             "assistant message that made no call")
    calls = []
    for i, item in enumerate(value):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise ChatShapeError(f"{where}.tool_calls[{i}] needs function.name")
        if history and (item.get("type") != "function" or not isinstance(item.get("id"), str)):
            raise ChatShapeError(f"{where}.tool_calls[{i}] must be {{id: string, type: "
                                 f"\"function\", function: {{name, arguments}}}}: got type "
                                 f"{item.get('type')!r}, id {item.get('id')!r}")
        raw = function.get("arguments")
        if history and not isinstance(raw, str):
            # the call's arguments as the model gave them: JSON text, required by an endpoint
            raise ChatShapeError(f"{where}.tool_calls[{i}].function.arguments must be the "
                                 f"JSON text of the call's arguments: got {type(raw).__name__}")
        raw = raw or "{}"
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
    announced: set[str] = set()  # the ids of the calls the history's assistant messages made
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
        calls = _tool_calls(item.get("tool_calls"), where, history=True)
        announced.update(c.id for c in calls)
        answers = item.get("tool_call_id") if role == "tool" else None
        if role == "tool" and answers not in announced:
            # as a Chat Completions endpoint refuses it: a tool result answers a call an
            # earlier assistant message of the history made (a runtime that drops its calls
            # from the history talks to no model but this gateway)
            raise ChatShapeError(f"{where}.tool_call_id {answers!r} answers no tool call an "
                                 "earlier assistant message made")
        messages.append(Message(
            role=role, content=content, toolCalls=calls, toolCallId=answers,
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
