"""The OpenAI Responses API dialect of the model gateway (docs/driver-api.md, "Model gateway: the
Responses API"): how a Responses request body reads as a :class:`~..core.protocol.ModelRequest`
and a :class:`~..core.protocol.ModelReply` as a response, whole or as the server-sent events a
Responses endpoint streams. A runtime whose model client speaks only this API (Codex CLI) posts
``{base}/v1/responses``.

The request:

- the system text is ``instructions`` and then the text of every ``system`` or ``developer``
  message that opens ``input`` (each content part a block, blocks joined by a blank line);
- later messages are the conversation (a ``developer`` message there is a system message), a
  ``function_call`` item an assistant tool call (with the assistant message right before it,
  when there is one, one assistant message), a ``function_call_output`` a tool message (the kit's
  own extension ``is_error: true`` marks an errored one, as in Chat Completions); custom tool
  calls read alike, their ``input`` as the argument ``input``; reasoning and other items carry
  nothing a rule reads and are left out;
- a message whose text starts ``[runtime-context] `` is a runtime-context notice (ST-08);
- ``tools``: each function tool by its name; a ``namespace`` tool's functions as
  ``NAMESPACE__NAME`` (:data:`JOIN`: Codex's MCP tools are the namespace ``mcp__SERVER``, so
  ``mcp__SERVER__TOOL``, the name Codex and Claude Code give an MCP tool); a custom tool by its
  name; a tool the provider runs itself (``web_search``, ...) by its type.

The reply is one ``message`` item with the text (an ``output_text`` part; a ``refusal`` part
for the stop reason refusal), then a ``function_call`` item per tool call (with the
``namespace`` of the offered tool whose joined name it calls; a ``custom_tool_call`` for a
custom tool). Its status says how it stopped: ``completed``; ``incomplete`` with the reason
``max_output_tokens`` (max-tokens); ``failed`` with the error code ``server_error`` (the scripted
stop reason error) or ``cancelled`` (aborted). Streamed (``stream: true``), the events are
``response.created``, ``response.in_progress``, per item ``response.output_item.added``, its
deltas (``response.content_part.added``, ``response.output_text.delta`` cut in several pieces,
``response.output_text.done``, ``response.content_part.done``; or
``response.function_call_arguments.delta`` and ``.done``) and ``response.output_item.done``, then
``response.completed``, ``response.incomplete`` or ``response.failed`` with the whole response;
each ``event: TYPE`` with its JSON as ``data`` and a ``sequence_number``. :func:`events_to_reply`
and :func:`response_to_reply` are the kit's readers of both: the round trip is the identity.

A leaf of the gateway: the router (:mod:`.gateway_server`) imports it; it imports the Chat
Completions dialect only (the shared parsing and model reading).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from subagent_tck.spec import StopReason

from ..core.protocol import Message, ModelReply, ModelRequest, ToolCall, ToolSchema
from .gateway_chat import CONTEXT_PREFIX, MODEL_NAME, as_text, reported_model
from .httpd import Answer

RESPONSES_PATH = "/v1/responses"
#: How a namespace and a tool of it join into one tool name.
JOIN = "__"
#: The longest piece of text one delta carries (every text of two characters or more is cut in
#: at least two, so a client that keeps only the last delta breaks here as on a real model).
DELTA = 64
_SYSTEM_ROLES = ("system", "developer")
_TEXT_PARTS = ("input_text", "output_text", "text")
USAGE = {"input_tokens": 0, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 0,
         "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 0}
#: The terminal event of each status, and the error code of a failed one.
_TERMINAL = {"completed": "response.completed", "incomplete": "response.incomplete",
             "failed": "response.failed", "cancelled": "response.failed"}
_FAILED = {StopReason.ERROR: ("failed", "server_error"),
           StopReason.ABORTED: ("cancelled", "cancelled")}
#: The ``incomplete_details.reason`` of each stop reason that leaves a response incomplete.
_INCOMPLETE = {StopReason.MAX_TOKENS: "max_output_tokens", StopReason.REFUSAL: "content_filter"}


class ResponsesShapeError(ValueError):
    """A body that does not have the Responses API's shape (the message says where)."""


# --- the request -----------------------------------------------------------------------


def _parts(content: Any, where: str) -> list[str]:
    """The texts of a message's content: a string, or the text (and refusal) parts of a list;
    images, files and audio carry nothing a rule reads."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        raise ResponsesShapeError(f"{where}.content must be a string or a list of parts")
    texts = []
    for i, part in enumerate(content):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise ResponsesShapeError(f"{where}.content[{i}] must be a part with a type")
        key = "refusal" if part["type"] == "refusal" else "text"
        if part["type"] in _TEXT_PARTS or part["type"] == "refusal":
            if not isinstance(part.get(key), str):
                raise ResponsesShapeError(f"{where}.content[{i}].{key} must be a string")
            texts.append(part[key])
    return texts


def _items(body: dict[str, Any]) -> list[dict[str, Any]]:
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": raw}]
    if not isinstance(raw, list):
        raise ResponsesShapeError("input must be a string or a list of items")
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ResponsesShapeError(f"input[{i}] must be an object")
    return raw


def _kind(item: dict[str, Any], where: str) -> str:
    kind = item.get("type", "message")  # an easy input message has a role and no type
    if not isinstance(kind, str):
        raise ResponsesShapeError(f"{where}.type must be a string")
    return kind


def _call(item: dict[str, Any], where: str) -> ToolCall:
    """A function_call (or custom_tool_call) item as a tool call, named as :func:`_tools` names
    the tool it calls."""
    name, ident = item.get("name"), item.get("call_id")
    if not isinstance(name, str) or not isinstance(ident, str):
        raise ResponsesShapeError(f"{where} needs a string call_id and name")
    namespace = item.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise ResponsesShapeError(f"{where}.namespace must be a string")
    if item["type"] == "custom_tool_call":
        if not isinstance(item.get("input"), str):
            raise ResponsesShapeError(f"{where}.input must be a string")
        arguments: Any = {"input": item["input"]}
    else:
        raw = item.get("arguments") or "{}"
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            raise ResponsesShapeError(f"{where}.arguments is not JSON") from None
        if not isinstance(arguments, dict):
            raise ResponsesShapeError(f"{where}.arguments is not an object")
    return ToolCall(id=ident, name=namespace + JOIN + name if namespace else name,
                    arguments=arguments)


def _output(item: dict[str, Any], where: str) -> Message:
    ident, output = item.get("call_id"), item.get("output")
    if not isinstance(ident, str):
        raise ResponsesShapeError(f"{where}.call_id must be a string")
    if output is not None and not isinstance(output, str):
        output = "".join(_parts(output, where))
    return Message(role="tool", toolCallId=ident, content=output,
                   isError=item.get("is_error") is True)


def _tools(value: Any) -> list[ToolSchema]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ResponsesShapeError("tools must be a list")
    tools: list[ToolSchema] = []
    for i, tool in enumerate(value):
        if not isinstance(tool, dict) or not isinstance(tool.get("type"), str):
            raise ResponsesShapeError(f"tools[{i}] must be an object with a type")
        if tool["type"] == "namespace":
            inner = tool.get("tools")
            if not isinstance(tool.get("name"), str) or not isinstance(inner, list):
                raise ResponsesShapeError(f"tools[{i}] needs a name and a list of tools")
            tools += [t.model_copy(update={"name": tool["name"] + JOIN + t.name})
                      for t in _tools(inner)]
        elif tool["type"] in ("function", "custom"):
            if not isinstance(tool.get("name"), str):
                raise ResponsesShapeError(f"tools[{i}] needs a name")
            description, parameters = tool.get("description"), tool.get("parameters")
            tools.append(ToolSchema(
                name=tool["name"], description=description if isinstance(description, str)
                else "", parameters=parameters if isinstance(parameters, dict) else {}))
        else:  # a tool the provider runs itself: web_search, file_search, ...
            tools.append(ToolSchema(name=tool["type"]))
    return tools


def responses_to_request(agent: str, body: Any) -> ModelRequest:
    """A Responses request body, sent by ``agent``, as a ModelRequest (its system text as sent,
    markers included)."""
    if not isinstance(body, dict):
        raise ResponsesShapeError("the body must be an object")
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ResponsesShapeError("instructions must be a string or null")
    blocks = [instructions] if instructions else []
    items = _items(body)
    opening = True  # still in the messages that open the input (the system text)
    joinable = False  # the last message is an assistant turn a call item joins
    messages: list[Message] = []
    context: list[str] = []
    for i, item in enumerate(items):
        where = f"input[{i}]"
        kind = _kind(item, where)
        if kind == "message":
            role = item.get("role")
            if role not in ("system", "developer", "user", "assistant"):
                raise ResponsesShapeError(f"{where}.role {role!r} is not system, developer, "
                                          "user or assistant")
            texts = _parts(item.get("content"), where)
            if opening and role in _SYSTEM_ROLES and not _notice(texts):
                blocks += texts
                continue
            opening = False
            joinable = role == "assistant"
            if role != "assistant" and _notice(texts):
                notice = "".join(texts)[len(CONTEXT_PREFIX):]
                context.append(notice[1:] if notice.startswith(" ") else notice)
                continue
            messages.append(Message(role="system" if role in _SYSTEM_ROLES else role,
                                    content="".join(texts) if texts or role != "assistant"
                                    else None))
        elif kind in ("function_call", "custom_tool_call"):
            opening = False
            if joinable:
                messages[-1].toolCalls.append(_call(item, where))
            else:
                messages.append(Message(role="assistant", toolCalls=[_call(item, where)]))
            joinable = True
        elif kind in ("function_call_output", "custom_tool_call_output"):
            opening = joinable = False
            messages.append(_output(item, where))
    return ModelRequest(agent=agent, system="\n\n".join(blocks), tools=_tools(body.get("tools")),
                        messages=messages, context=context, model=reported_model(body.get("model")))


def _notice(texts: list[str]) -> bool:
    return "".join(texts).startswith(CONTEXT_PREFIX)


def request_to_responses(request: ModelRequest) -> dict[str, Any]:
    """A ModelRequest as a Responses request body (the kit's own client side): the system text
    as ``instructions``, tool messages as ``function_call_output`` items (``is_error`` kept),
    notices as trailing ``[runtime-context] `` user messages."""
    items: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "tool":
            out: dict[str, Any] = {"type": "function_call_output",
                                   "call_id": message.toolCallId or "",
                                   "output": as_text(message.content)}
            if message.isError:
                out["is_error"] = True
            items.append(out)
        elif message.role == "assistant":
            if message.content is not None or not message.toolCalls:
                items.append({"type": "message", "role": "assistant", "content": [] if
                              message.content is None else [{"type": "output_text", "text":
                                                             as_text(message.content)}]})
            items += [{"type": "function_call", "call_id": c.id, "name": c.name,
                       "arguments": json.dumps(c.arguments)} for c in message.toolCalls]
        else:
            items.append({"type": "message", "role": message.role,
                          "content": [{"type": "input_text", "text": as_text(message.content)}]})
    items += [{"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": f"{CONTEXT_PREFIX} {notice}"}]}
        for notice in request.context]
    body: dict[str, Any] = {"model": request.model or MODEL_NAME, "instructions": request.system,
                            "input": items}
    if request.tools:
        body["tools"] = [{"type": "function", "name": t.name, "description": t.description,
                          "parameters": t.parameters} for t in request.tools]
    return body


def streaming(body: dict[str, Any]) -> bool:
    """Whether a request body asked for a stream; ResponsesShapeError when ``stream`` is not a
    boolean."""
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise ResponsesShapeError("stream must be true, false or null")
    return stream is True


# --- the reply -------------------------------------------------------------------------

_ids = itertools.count(1)


def _offered(body: dict[str, Any] | None) -> dict[str, tuple[str | None, str, str]]:
    """Joined tool name -> (namespace, name, type) of the tools a request offered."""
    found: dict[str, tuple[str | None, str, str]] = {}
    tools = body.get("tools") if isinstance(body, dict) else None
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        if tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            for inner in tool["tools"]:
                if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                    found[tool["name"] + JOIN + inner["name"]] = (
                        tool["name"], inner["name"], str(inner.get("type", "function")))
        else:
            found.setdefault(tool["name"], (None, tool["name"], str(tool.get("type"))))
    return found


def _status(reply: ModelReply) -> tuple[str, dict[str, Any] | None, dict[str, Any] | None]:
    """The response's status, its ``error`` and its ``incomplete_details``."""
    if reply.stopReason in _FAILED:
        status, code = _FAILED[reply.stopReason]
        return status, {"code": code, "message": "the scripted model's turn ended: "
                        f"{reply.stopReason.value}"}, None
    if reply.stopReason in _INCOMPLETE:
        return "incomplete", None, {"reason": _INCOMPLETE[reply.stopReason]}
    return "completed", None, None


def _output_items(reply: ModelReply, body: dict[str, Any] | None) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text is not None:
        items.append({"id": f"msg_tck_{next(_ids)}", "type": "message", "status": "completed",
                      "role": "assistant", "content": [
                          {"type": "output_text", "text": reply.text, "annotations": []}]})
    offered = _offered(body)
    for call in reply.toolCalls:
        namespace, name, kind = offered.get(call.name, (None, call.name, "function"))
        if kind == "custom":
            raw = call.arguments.get("input")
            items.append({"id": f"ctc_tck_{next(_ids)}", "type": "custom_tool_call",
                          "status": "completed", "call_id": call.id, "name": name,
                          "input": raw if isinstance(raw, str) else json.dumps(call.arguments)})
            continue
        item = {"id": f"fc_tck_{next(_ids)}", "type": "function_call", "status": "completed",
                "call_id": call.id, "name": name,
                "arguments": json.dumps(call.arguments, ensure_ascii=False)}
        if namespace is not None:
            item["namespace"] = namespace
        items.append(item)
    return items


def reply_to_response(reply: ModelReply, body: dict[str, Any] | None = None,
                      model: str = MODEL_NAME) -> dict[str, Any]:
    """A ModelReply as a Responses response object, answering the request ``body`` (whose
    tools name the namespace of a call)."""
    status, error, incomplete = _status(reply)
    return {"id": f"resp_tck_{next(_ids)}", "object": "response", "created_at": 0,
            "status": status, "error": error, "incomplete_details": incomplete, "model": model,
            "output": _output_items(reply, body), "parallel_tool_calls": True,
            "usage": dict(USAGE)}


def _pieces(text: str) -> list[str]:
    size = max(1, min(DELTA, (len(text) + 1) // 2))
    return [text[i:i + size] for i in range(0, len(text), size)]


def reply_to_events(reply: ModelReply, body: dict[str, Any] | None = None,
                    model: str = MODEL_NAME) -> str:
    """A ModelReply as the server-sent events text of a streamed response."""
    whole = reply_to_response(reply, body, model)
    events: list[dict[str, Any]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **data})

    opened = {**whole, "status": "in_progress", "output": [], "error": None,
              "incomplete_details": None, "usage": None}
    emit("response.created", response=opened)
    emit("response.in_progress", response=opened)
    for index, item in enumerate(whole["output"]):
        ident = item["id"]
        if item["type"] == "message":
            emit("response.output_item.added", output_index=index,
                 item={**item, "status": "in_progress", "content": []})
            part = item["content"][0]
            at = {"item_id": ident, "output_index": index, "content_index": 0}
            emit("response.content_part.added", **at, part={**part, "text": ""})
            for piece in _pieces(part["text"]):
                emit("response.output_text.delta", **at, delta=piece)
            emit("response.output_text.done", **at, text=part["text"])
            emit("response.content_part.done", **at, part=part)
        else:
            field = "arguments" if item["type"] == "function_call" else "input"
            kind = ("response.function_call_arguments" if field == "arguments"
                    else "response.custom_tool_call_input")
            emit("response.output_item.added", output_index=index,
                 item={**item, "status": "in_progress", field: ""})
            for piece in _pieces(item[field]):
                emit(f"{kind}.delta", item_id=ident, output_index=index, delta=piece)
            emit(f"{kind}.done", item_id=ident, output_index=index, **{field: item[field]})
        emit("response.output_item.done", output_index=index, item=item)
    emit(_TERMINAL[whole["status"]], response=whole)
    # ASCII JSON: no character of the data can read as a line break to any SSE parser
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n"
                   for e in events)


def response_to_reply(body: Any) -> ModelReply:
    """A Responses response object as a ModelReply (the kit's own client side): the text of its
    message items, its calls, the stop reason its status says."""
    if not isinstance(body, dict) or not isinstance(body.get("output"), list):
        raise ResponsesShapeError("the answer has no output list")
    text: str | None = None
    calls: list[ToolCall] = []
    for i, item in enumerate(body["output"]):
        where = f"output[{i}]"
        if not isinstance(item, dict):
            raise ResponsesShapeError(f"{where} must be an object")
        kind = _kind(item, where)
        if kind == "message":
            text = (text or "") + "".join(_parts(item.get("content"), where))
        elif kind in ("function_call", "custom_tool_call"):
            calls.append(_call(item, where))
    return ModelReply(text=text, toolCalls=calls, stopReason=_stop(body))


def _stop(body: dict[str, Any]) -> StopReason:
    status = body.get("status", "completed")
    if status == "completed":
        return StopReason.COMPLETED
    failed = next((stop for stop, (s, _) in _FAILED.items() if s == status), None)
    if failed is not None:
        return failed
    details = body.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    incomplete = next((stop for stop, r in _INCOMPLETE.items() if r == reason), None)
    if status == "incomplete" and incomplete is not None:
        return incomplete
    raise ResponsesShapeError(f"status {status!r} (incomplete_details {details!r}) is unknown")


def events_to_reply(stream: str) -> ModelReply:
    """A streamed response (its SSE text) as a ModelReply: the response its terminal event
    carries; ResponsesShapeError when an event is off the shape, the stream carried an error, or
    it ended before a terminal event (it was cut)."""
    for number, block in enumerate(stream.replace("\r\n", "\n").split("\n\n")):
        data = "\n".join(line[5:].removeprefix(" ") for line in block.split("\n")
                         if line.startswith("data:"))
        if not data:
            continue
        try:
            event = json.loads(data)
        except ValueError:
            raise ResponsesShapeError(f"event {number} is not JSON") from None
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "error":
            raise ResponsesShapeError(f"the stream carried an error: {event}")
        if kind in _TERMINAL.values():
            return response_to_reply(event.get("response"))
    raise ResponsesShapeError("the stream ended before its terminal event (it was cut)")


# --- the route -------------------------------------------------------------------------


def route(rest: str) -> tuple[bool, str | None]:
    """For the part of a gateway path after ``/d/{mount}``: whether it is a Responses route,
    and the agent id in its path (None: the marker route ``/v1/responses``)."""
    if not rest.endswith(RESPONSES_PATH):
        return False, None
    head = rest[:-len(RESPONSES_PATH)]
    name = head[len("/agents/"):]
    if head.startswith("/agents/") and name and "/" not in name:
        return True, name
    return head == "", None


def answer(reply: ModelReply, body: dict[str, Any]) -> Answer:
    """The reply to the request ``body``, as events when it asked for a stream."""
    model = body.get("model")
    model = model if isinstance(model, str) else MODEL_NAME
    if streaming(body):
        return Answer(200, reply_to_events(reply, body, model).encode("utf-8"),
                      "text/event-stream", (("cache-control", "no-cache"),))
    return Answer(200, json.dumps(reply_to_response(reply, body, model),
                                  ensure_ascii=False).encode("utf-8"))
