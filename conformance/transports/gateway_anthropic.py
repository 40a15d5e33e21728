"""The model gateway speaking Anthropic Messages, with attribution by marker.

A runtime whose model client is Anthropic's (Claude Code, the Claude Agent SDK) posts
``{base}/v1/messages`` (streaming SSE or not) and ``{base}/v1/messages/count_tokens``; the kit's
gateway answers both on every deployment mount, beside Chat Completions
(docs/driver-api.md, "Model gateway: Anthropic Messages"):

- ``{gatewayUrl}/agents/{agentId}/v1/messages``: the agent id in the path is the attribution,
  as for Chat Completions;
- ``{gatewayUrl}/v1/messages``: for a runtime that gives every agent one base URL. The request
  is attributed by the **agent marker** the adapter planted in that agent's configured prompt
  (:func:`agent_marker`): the one marker found in the request's system text names the agent.
  The marker is cut out of the system text the checks read, so a persona compares as written.
  A request with no marker, or with two different ones, is recorded as unattributed
  (:meth:`~.gateway.Gateway.refuse`) and refused with 403: the check that needed that agent's
  request finds none and fails, with the refused request in its transcript.

The mapping to :class:`~.protocol.ModelRequest`: system blocks' texts joined by a blank line;
user text blocks are user messages, ``tool_result`` blocks tool messages (``is_error`` kept);
assistant ``text`` and ``tool_use`` blocks one assistant message; ``thinking`` blocks and other
block types carry nothing a rule reads and are left out; a ``system`` message inside the
conversation (Claude Code's mid-conversation system notes) is a system message. Runtime-context
notices (ST-08) are text blocks starting ``[runtime-context] ``.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any
from urllib.parse import quote, unquote

from subagent_tck.spec import StopReason

from ..core.protocol import Message, ModelReply, ModelRequest, ToolCall, ToolSchema
from .gateway_chat import (
    CONTEXT_PREFIX,
    KIT_STOPS,
    MODEL_NAME,
    as_text,
    parse_chat,
    read_back,
    reported_model,
)
from .httpd import Answer

MESSAGES_PATH = "/v1/messages"
COUNT_PATH = "/v1/messages/count_tokens"
#: The text a text delta is cut into (a real model streams many small deltas; a client that
#: keeps only the last one breaks here as it would on a real model).
DELTA = 64

_MARKER = re.compile(r"\[subagent-tck agent=([A-Za-z0-9%._~-]+)\]")

_STOP = {StopReason.MAX_TOKENS: "max_tokens", StopReason.REFUSAL: "refusal", **KIT_STOPS}
_REASON = read_back(_STOP, "end_turn", "tool_use", "stop_sequence", "pause_turn")


class MessagesShapeError(ValueError):
    """A Messages body that does not have Anthropic's shape (the message says where)."""


# --- attribution by marker -------------------------------------------------------------


def agent_marker(agent: str) -> str:
    """The marker an adapter plants in the configured prompt of ``agent`` (its id, as its API
    reports it, percent-encoded): ``[subagent-tck agent=ID]``."""
    return f"[subagent-tck agent={quote(agent, safe='')}]"


def find_marker(system: str) -> tuple[str | None, str, str | None]:
    """``(agent, system without its markers, why not attributed)``: the agent named by the one
    distinct marker in ``system``; None and the reason when there is none or more than one."""
    found = {unquote(m) for m in _MARKER.findall(system)}
    stripped = _MARKER.sub("", system)
    stripped = re.sub(r"[ \t]+\n", "\n", stripped).strip()
    if not found:
        return None, stripped, ("the request carries no agent marker: plant "
                                "`[subagent-tck agent=ID]` in each agent's configured prompt, "
                                "or post to {gatewayUrl}/agents/{agentId}/v1/messages")
    if len(found) > 1:
        names = ", ".join(sorted(repr(a) for a in found))
        return None, stripped, f"the request carries markers of several agents ({names})"
    return found.pop(), stripped, None


# --- the request -----------------------------------------------------------------------


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise MessagesShapeError(f"{where}.content must be a string or a list of blocks")
    for i, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise MessagesShapeError(f"{where}.content[{i}] must be a block with a type")
    return content


def _block_text(block: dict[str, Any], where: str) -> str:
    value = block.get("text")
    if not isinstance(value, str):
        raise MessagesShapeError(f"{where}.text must be a string")
    return value


def _result_text(content: Any, where: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(_block_text(b, f"{where}.content[{i}]")
                   for i, b in enumerate(_blocks(content, where)) if b["type"] == "text")


def _system(value: Any) -> str:
    if value is None:
        return ""
    blocks = _blocks(value, "system")
    return "\n\n".join(_block_text(b, f"system[{i}]") for i, b in enumerate(blocks)
                       if b["type"] == "text")


def _tools(value: Any) -> list[ToolSchema]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MessagesShapeError("tools must be a list")
    tools = []
    for i, tool in enumerate(value):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise MessagesShapeError(f"tools[{i}] must be an object with a name")
        schema = tool.get("input_schema")
        description = tool.get("description")
        tools.append(ToolSchema(name=tool["name"],
                                description=description if isinstance(description, str) else "",
                                parameters=schema if isinstance(schema, dict) else {}))
    return tools


def _user(blocks: list[dict[str, Any]], where: str, role: str,
          context: list[str]) -> list[Message]:
    """A user (or system) turn: its tool results as tool messages, its text as one message."""
    out: list[Message] = []
    texts: list[str] = []
    for i, block in enumerate(blocks):
        at = f"{where}.content[{i}]"
        if block["type"] == "text":
            text = _block_text(block, at)
            if text.startswith(CONTEXT_PREFIX):
                notice = text[len(CONTEXT_PREFIX):]  # one separating space, the rest is text
                context.append(notice[1:] if notice.startswith(" ") else notice)
            else:
                texts.append(text)
        elif block["type"] == "tool_result" and role == "user":
            ident = block.get("tool_use_id")
            if not isinstance(ident, str):
                raise MessagesShapeError(f"{at}.tool_use_id must be a string")
            out.append(Message(role="tool", toolCallId=ident,
                               content=_result_text(block.get("content"), at),
                               isError=block.get("is_error") is True))
    if texts:
        out.append(Message(role="system" if role == "system" else "user",
                           content="".join(texts)))
    return out


def _assistant(blocks: list[dict[str, Any]], where: str) -> Message:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for i, block in enumerate(blocks):
        at = f"{where}.content[{i}]"
        if block["type"] == "text":
            texts.append(_block_text(block, at))
        elif block["type"] in ("tool_use", "server_tool_use"):
            name, ident, arguments = block.get("name"), block.get("id"), block.get("input", {})
            if not isinstance(name, str) or not isinstance(ident, str):
                raise MessagesShapeError(f"{at} needs a string id and name")
            if not isinstance(arguments, dict):
                raise MessagesShapeError(f"{at}.input must be an object")
            calls.append(ToolCall(id=ident, name=name, arguments=arguments))
    return Message(role="assistant", content="".join(texts) if texts else None, toolCalls=calls)


def _answer_calls(messages: list[Message]) -> None:
    """As the Messages API refuses it: a ``tool_result`` answers a ``tool_use`` an earlier
    assistant turn of the history made (a runtime that drops its calls from the history, or
    invents an id, talks to no model but this gateway)."""
    announced: set[str] = set()
    for message in messages:
        announced.update(call.id for call in message.toolCalls)
        if message.role == "tool" and message.toolCallId not in announced:
            raise MessagesShapeError(f"a tool_result's tool_use_id {message.toolCallId!r} "
                                     "answers no tool_use an earlier assistant turn made")


def messages_to_request(agent: str, body: Any) -> ModelRequest:
    """A Messages request body, sent by ``agent``, as a ModelRequest (its system text as
    sent, markers included: :func:`find_marker` cuts them)."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise MessagesShapeError("the body must be an object with a messages list")
    messages: list[Message] = []
    context: list[str] = []
    for i, item in enumerate(body["messages"]):
        where = f"messages[{i}]"
        if not isinstance(item, dict):
            raise MessagesShapeError(f"{where} must be an object")
        role = item.get("role")
        if role not in ("user", "assistant", "system"):
            raise MessagesShapeError(f"{where}.role {role!r} is not user, assistant or system")
        blocks = _blocks(item.get("content"), where)
        if role == "assistant":
            messages.append(_assistant(blocks, where))
        else:
            messages += _user(blocks, where, role, context)
    _answer_calls(messages)
    return ModelRequest(agent=agent, system=_system(body.get("system")),
                        tools=_tools(body.get("tools")), messages=messages, context=context,
                        model=reported_model(body.get("model")))


def request_to_messages(request: ModelRequest) -> dict[str, Any]:
    """A ModelRequest as a Messages request body (non-streaming): tool messages become
    ``tool_result`` blocks of one user turn, notices trailing ``[runtime-context] `` texts."""
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    for message in request.messages:
        if message.role == "tool":
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.toolCallId or "",
                                     "content": as_text(message.content)}
            if message.isError:
                block["is_error"] = True
            if results is None:
                results = []
                messages.append({"role": "user", "content": results})
            results.append(block)
            continue
        results = None
        if message.role == "assistant":
            blocks: list[dict[str, Any]] = [] if message.content is None else [
                {"type": "text", "text": as_text(message.content)}]
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                       for c in message.toolCalls]
            messages.append({"role": "assistant", "content": blocks})
        else:
            messages.append({"role": message.role, "content": [
                {"type": "text", "text": as_text(message.content)}]})
    if request.context:
        messages.append({"role": "user", "content": [
            {"type": "text", "text": f"{CONTEXT_PREFIX} {notice}"} for notice in request.context]})
    body: dict[str, Any] = {"model": request.model or MODEL_NAME, "max_tokens": 1024,
                            "messages": messages}
    if request.system:
        body["system"] = [{"type": "text", "text": request.system}]
    if request.tools:
        body["tools"] = [{"name": t.name, "description": t.description,
                          "input_schema": t.parameters} for t in request.tools]
    return body


def count_tokens(body: Any) -> dict[str, int]:
    """``count_tokens``' answer: a size estimate (about four characters a token), after the
    same shape check as a Messages body."""
    messages_to_request("count-tokens", body)
    return {"input_tokens": max(1, len(json.dumps(body)) // 4)}


# --- the reply -------------------------------------------------------------------------

_ids = itertools.count(1)


def _content(reply: ModelReply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
               for c in reply.toolCalls]
    return blocks


def stop_reason(reply: ModelReply) -> str:
    return _STOP.get(reply.stopReason, "tool_use" if reply.toolCalls else "end_turn")


def reply_to_message(reply: ModelReply, model: str = MODEL_NAME) -> dict[str, Any]:
    """A ModelReply as a non-streaming Messages response body."""
    return {"id": f"msg_tck_{next(_ids)}", "type": "message", "role": "assistant",
            "model": model, "content": _content(reply), "stop_reason": stop_reason(reply),
            "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}


def _event(kind: str, data: dict[str, Any]) -> str:
    # ASCII JSON: no character of the data can read as a line break to any SSE parser
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def reply_to_events(reply: ModelReply, model: str = MODEL_NAME) -> str:
    """A ModelReply as a Messages event stream (the SSE text): message_start, per block
    content_block_start, its deltas (text_delta; input_json_delta for a tool's input, cut in
    two) and content_block_stop, then message_delta with the stop reason and message_stop."""
    message = reply_to_message(reply, model)
    events = [_event("message_start", {"message": {**message, "content": [],
                                                   "stop_reason": None}})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            text = block["text"]
            deltas = [{"type": "text_delta", "text": text[i:i + DELTA]}
                      for i in range(0, len(text), DELTA)]
        else:
            start = {**block, "input": {}}
            raw = json.dumps(block["input"], ensure_ascii=False)
            half = len(raw) // 2
            deltas = [{"type": "input_json_delta", "partial_json": part}
                      for part in (raw[:half], raw[half:]) if part]
        events.append(_event("content_block_start", {"index": index, "content_block": start}))
        events += [_event("content_block_delta", {"index": index, "delta": d}) for d in deltas]
        events.append(_event("content_block_stop", {"index": index}))
    events.append(_event("message_delta", {"delta": {"stop_reason": message["stop_reason"],
                                                     "stop_sequence": None},
                                           "usage": {"output_tokens": 0}}))
    events.append(_event("message_stop", {}))
    return "".join(events)


def message_to_reply(body: Any) -> ModelReply:
    """A non-streaming Messages response body as a ModelReply (the kit's own client side)."""
    if not isinstance(body, dict) or not isinstance(body.get("content"), list):
        raise MessagesShapeError("the answer has no content list")
    message = _assistant(_blocks(body["content"], "content"), "answer")
    reason = body.get("stop_reason") or "end_turn"
    if reason not in _REASON:
        raise MessagesShapeError(f"stop_reason {reason!r} is unknown")
    return ModelReply(text=message.content, toolCalls=message.toolCalls,
                      stopReason=_REASON[reason])


def events_to_reply(stream: str) -> ModelReply:
    """A Messages event stream as a ModelReply: the blocks accumulated from their deltas."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    reason = "end_turn"
    for chunk in stream.split("\n\n"):
        data = next((line[5:].strip() for line in chunk.split("\n")
                     if line.startswith("data:")), None)
        if data is None:
            continue
        event = json.loads(data)
        kind = event.get("type")
        if kind == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"])
        elif kind == "content_block_delta":
            delta = event["delta"]
            if delta.get("type") == "text_delta":
                block = blocks[event["index"]]
                block["text"] = block.get("text", "") + delta["text"]
            elif delta.get("type") == "input_json_delta":
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
        elif kind == "message_delta":
            reason = event["delta"].get("stop_reason") or reason
        elif kind == "error":
            raise MessagesShapeError(f"the stream carried an error: {event.get('error')}")
    for index, raw in partial.items():
        blocks[index]["input"] = json.loads(raw) if raw else {}
    return message_to_reply({"content": [blocks[i] for i in sorted(blocks)],
                             "stop_reason": reason})


# --- the route -------------------------------------------------------------------------


def error(status: int, message: str, kind: str = "invalid_request_error") -> Answer:
    """An answer with Anthropic's error body."""
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return Answer(status, json.dumps(body, ensure_ascii=False).encode("utf-8"))


def no_retry(answer: Answer) -> Answer:
    """``answer`` with ``x-should-retry: false``: Anthropic's clients retry a 5xx, which would
    take the script's next reply for a failure the script meant (a scripted hook that raised,
    a stall)."""
    return answer._replace(headers=(*answer.headers, ("x-should-retry", "false")))


def route(rest: str) -> tuple[str | None, str] | None:
    """``(agent in the path or None, "messages" | "count")`` for the part of a gateway path
    after ``/d/{mount}``, or None when it is not a Messages route."""
    for suffix, kind in ((COUNT_PATH, "count"), (MESSAGES_PATH, "messages")):
        if rest.endswith(suffix):
            head = rest[:-len(suffix)]
            if head == "":
                return None, kind
            if head.startswith("/agents/") and len(head) > len("/agents/") \
                    and "/" not in head[len("/agents/"):]:
                return unquote(head[len("/agents/"):]), kind
    return None


def parse(data: bytes) -> Any:
    """The body as JSON (ValueError when it is not JSON or nests too deeply)."""
    return parse_chat(data)


def answer(reply: ModelReply, body: dict[str, Any]) -> Answer:
    """The reply, as a stream when the request asked for one (``stream: true``)."""
    model = body.get("model")
    if not isinstance(model, str):
        model = MODEL_NAME
    if body.get("stream") is True:
        return Answer(200, reply_to_events(reply, model).encode("utf-8"), "text/event-stream",
                      (("cache-control", "no-cache"),))
    return Answer(200, json.dumps(reply_to_message(reply, model),
                                  ensure_ascii=False).encode("utf-8"))
