"""Chat Completions streaming: a reply as ``chat.completion.chunk`` server-sent events, and back.

A request with ``stream: true`` is answered with ``text/event-stream`` as an OpenAI endpoint
streams (docs/driver-api.md, "Model gateway: streaming"): a first chunk with the role (and
``content: ""`` when the reply has text, ``null`` when it has none), the text cut into several
content deltas, each tool call as ``delta.tool_calls[{index, id, type, function: {name,
arguments: ""}}]`` followed by its arguments text split over several chunks, a last choice
chunk with an empty delta and the ``finish_reason`` the non-streaming answer would carry, with
``stream_options.include_usage`` a chunk with no choices and the usage, then ``data: [DONE]``.

:func:`stream_to_reply` is the kit's own reader of such a stream (what a client accumulates):
the round trip ``reply -> stream -> reply`` is the identity, so what a runtime reads is what
the script said.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from ..core.protocol import ModelReply
from .gateway_chat import MODEL_NAME, ChatShapeError, chat_to_reply, finish_reason

#: The longest piece of text one content delta carries (a real model streams a few characters a
#: chunk; every text of two characters or more is cut in at least two, so a client that keeps
#: only the last delta breaks here as it would on a real model).
DELTA = 64
DONE = "[DONE]"
USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}

_ids = itertools.count(1)


def _pieces(text: str) -> list[str]:
    """``text`` cut in pieces of at most DELTA characters, at least two when it has two."""
    size = max(1, min(DELTA, (len(text) + 1) // 2))
    return [text[i:i + size] for i in range(0, len(text), size)]


def reply_to_chunks(reply: ModelReply, model: str = MODEL_NAME,
                    include_usage: bool = False) -> list[dict[str, Any]]:
    """A ModelReply as the ``chat.completion.chunk`` objects of one streamed answer."""
    head = {"id": f"chatcmpl-tck-s{next(_ids)}", "object": "chat.completion.chunk",
            "created": 0, "model": model, "system_fingerprint": None}
    extra = {"usage": None} if include_usage else {}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                     "finish_reason": finish}], **extra}

    chunks = [chunk({"role": "assistant", "content": None if reply.text is None else ""})]
    chunks += [chunk({"content": piece}) for piece in _pieces(reply.text or "")]
    for index, call in enumerate(reply.toolCalls):
        chunks.append(chunk({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                             "function": {"name": call.name,
                                                          "arguments": ""}}]}))
        chunks += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in _pieces(json.dumps(call.arguments, ensure_ascii=False))]
    chunks.append(chunk({}, finish_reason(reply)))
    if include_usage:
        chunks.append({**head, "choices": [], "usage": dict(USAGE)})
    return chunks


def reply_to_stream(reply: ModelReply, model: str = MODEL_NAME,
                    include_usage: bool = False) -> str:
    """A ModelReply as the server-sent events text of a streamed answer, ``[DONE]`` last."""
    # ASCII JSON: no character of the data can read as a line break to any SSE parser
    events = [f"data: {json.dumps(c, separators=(',', ':'))}\n\n"
              for c in reply_to_chunks(reply, model, include_usage)]
    return "".join(events) + f"data: {DONE}\n\n"


def _events(stream: str) -> list[str]:
    """The data of each event of an SSE text (``data:`` lines joined; comments skipped)."""
    events = []
    for block in stream.replace("\r\n", "\n").replace("\r", "\n").split("\n\n"):
        data = [line[5:].removeprefix(" ") for line in block.split("\n")
                if line.startswith("data:")]
        if data:
            events.append("\n".join(data))
    return events


def _delta(chunk: Any, at: str) -> tuple[dict[str, Any] | None, Any]:
    if not isinstance(chunk, dict):
        raise ChatShapeError(f"{at} is not a JSON object")
    if "error" in chunk:
        raise ChatShapeError(f"the stream carried an error: {chunk['error']}")
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        raise ChatShapeError(f"{at}.choices must be a list")
    choice = next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)
    if choice is None:  # the usage chunk, or another choice's
        return None, None
    delta = choice.get("delta")
    if not isinstance(delta, dict):
        raise ChatShapeError(f"{at}.choices[0].delta must be an object")
    return delta, choice.get("finish_reason")


def stream_to_reply(stream: str) -> ModelReply:
    """A streamed Chat Completions answer (its SSE text) as a ModelReply: choice 0's content
    and tool calls accumulated from their deltas; ChatShapeError when a chunk is off the
    shape, the stream carried an error, or it ended before ``data: [DONE]``."""
    text: str | None = None
    calls: dict[int, dict[str, Any]] = {}
    finish: Any = None
    done = False
    for number, data in enumerate(_events(stream)):
        at = f"chunk {number}"
        if data.strip() == DONE:
            done = True
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ChatShapeError(f"{at} is not JSON") from None
        delta, finished = _delta(chunk, at)
        if delta is None:
            continue
        finish = finished or finish
        content = delta.get("content")
        if isinstance(content, str):
            text = (text or "") + content
        for item in delta.get("tool_calls") or []:
            index = item.get("index") if isinstance(item, dict) else None
            if not isinstance(index, int):
                raise ChatShapeError(f"{at}: each delta.tool_calls item needs an integer index")
            call = calls.setdefault(index, {"type": "function",
                                            "function": {"arguments": ""}})
            if "id" in item:
                call["id"] = item["id"]
            function = item.get("function") or {}
            if not isinstance(function, dict):
                raise ChatShapeError(f"{at}: delta.tool_calls[].function must be an object")
            if "name" in function:
                call["function"]["name"] = function["name"]
            piece = function.get("arguments")
            if piece is not None:
                if not isinstance(piece, str):
                    raise ChatShapeError(f"{at}: function.arguments must be text")
                call["function"]["arguments"] += piece
    if not done:
        raise ChatShapeError(f"the stream ended before data: {DONE} (it was cut)")
    message = {"role": "assistant", "content": text,
               "tool_calls": [calls[i] for i in sorted(calls)] or None}
    return chat_to_reply({"choices": [{"index": 0, "message": message,
                                       "finish_reason": finish}]})
