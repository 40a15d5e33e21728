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
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from ..core.gateway import Gateway
from ..core.protocol import ModelReply, ModelRequest
from . import gateway_anthropic as anthropic
from .connections import Connections, ExchangeError
from .gateway_chat import (
    CHAT_PATH,
    MODEL_NAME,
    ChatShapeError,
    chat_to_reply,
    chat_to_request,
    parse_chat,
    reply_to_chat,
    request_to_chat,
    streaming,
)
from .gateway_chat_stream import reply_to_stream
from .httpd import Answer, Request, ServerThread, foreign
from .loopback import Stalled, call_with_timeout
from .wire import MAX_BODY

#: Whether the target reported an agent id (see GatewayServer.mount).
Known = Callable[[str], bool]


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
            found = anthropic.route("/" + parts[3])
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
            agent, system, unmarked = anthropic.find_marker(model_request.system)
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
            return Answer(200, reply_to_stream(reply, model, usage).encode("utf-8"),
                          "text/event-stream", (("cache-control", "no-cache"),))
        return _json(reply_to_chat(reply, model))

    def _messages(self, request: Request, name: str, agent: str | None, kind: str) -> Answer:
        """The Anthropic Messages routes (conformance/transports/gateway_anthropic.py):
        ``agent`` from the path, or None to attribute the request by its agent marker."""
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
