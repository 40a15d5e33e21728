"""The model gateway over HTTP on 127.0.0.1: OpenAI Chat Completions, Anthropic Messages and the
OpenAI Responses API, each streaming or not; the router of their dialects.

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
(:mod:`.gateway_chat_stream`). The same mount answers ``{gatewayUrl}[/agents/{agentId}]/v1/
messages`` (:mod:`.gateway_anthropic`) and ``{gatewayUrl}[/agents/{agentId}]/v1/responses``
(:mod:`.gateway_responses`); every dialect goes through one path (:meth:`GatewayServer._serve`):
the same refusals, attribution, record and timeouts, in that dialect's words.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple
from urllib.parse import quote, unquote, urlsplit

from ..core.gateway import Gateway, ModelFailure
from ..core.protocol import ModelReply, ModelRequest
from . import gateway_anthropic as anthropic
from . import gateway_responses as responses
from .connections import Connections, ExchangeError
from .gateway_anthropic import MESSAGES_PATH
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
from .gateway_responses import RESPONSES_PATH
from .gateway_responses import route as route_responses
from .httpd import MAX_CONNECTIONS, Answer, Request, ServerThread, foreign
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


def _chat_answer(reply: ModelReply, body: dict[str, Any]) -> Answer:
    stream, usage = streaming(body)
    model = body.get("model")
    model = model if isinstance(model, str) else MODEL_NAME
    if stream:
        return Answer(200, reply_to_stream(reply, model, usage).encode("utf-8"),
                      "text/event-stream", (("cache-control", "no-cache"),))
    return _json(reply_to_chat(reply, model))


def _chat_read(agent: str, body: Any) -> ModelRequest:
    request = chat_to_request(agent, body)
    streaming(body)  # a stream flag off the shape is refused before anything is recorded
    return request


def _responses_read(agent: str, body: Any) -> ModelRequest:
    request = responses.responses_to_request(agent, body)
    responses.streaming(body)
    return request


class _Dialect(NamedTuple):
    """How one wire dialect reads a request, words its errors (and the error kinds it names
    them by) and answers a reply."""

    what: str  # "a chat completion": what to POST instead of another method
    request: str  # "a Chat Completions request": what a body off the shape is not
    path: str  # its marker route, named when a request has no marker
    read: Callable[[str, Any], ModelRequest]
    answer: Callable[[ModelReply, dict[str, Any]], Answer]
    error: Callable[[int, str, str], Answer]
    cut: bool  # markers cut from the system text of a request attributed by its path too
    invalid: str = "invalid_request_error"
    permission: str = "permission_error"
    not_found: str = "invalid_request_error"
    timeout: str = "timeout"
    crash: str = "server_error"


_CHAT = _Dialect("a chat completion", "a Chat Completions request", CHAT_PATH, _chat_read,
                 _chat_answer, _error, cut=False)
_RESPONSES = _Dialect("a response", "a Responses API request", RESPONSES_PATH, _responses_read,
                      responses.answer, _error, cut=True)
_MESSAGES = _Dialect("a message", "an Anthropic Messages request", MESSAGES_PATH,
                     anthropic.messages_to_request, anthropic.answer, anthropic.error, cut=True,
                     not_found="not_found_error", timeout="timeout_error", crash="api_error")


class GatewayServer:
    """Serves mounted gateways on 127.0.0.1 (one server per target, one mount per deployment).

    A reply that does not come within ``reply_timeout`` seconds (a stalled script) is answered
    with HTTP 504, so the target's run ends instead of hanging. An exception raised by a
    scripted hook is answered with HTTP 500 and its message: the target's model call fails, as
    it fails in-process when the hook raises inside the runtime's model call.
    """

    def __init__(self, reply_timeout: float = 30.0,
                 max_connections: int = MAX_CONNECTIONS) -> None:
        self.reply_timeout = reply_timeout
        self._lock = threading.Lock()
        self._mounts: dict[str, tuple[Gateway, Known | None]] = {}
        self._names = itertools.count(1)
        self.calls = 0  # requests answered with a reply (for benchmarks and diagnostics)
        self._thread = ServerThread(self, name="subagent-tck gateway",
                                    max_connections=max_connections)
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
        gateway.turned_away = self._turned_away_since(self._thread.refused)
        return f"{self.url}/d/{name}"

    def _turned_away_since(self, before: int) -> Callable[[], str | None]:
        """Why connections were turned away since ``before`` of them had been (a check's
        cause: docs/certify.md#reading-a-certificate), or None when none was."""
        def turned_away() -> str | None:
            count = self._thread.refused - before
            if count <= 0:
                return None
            return (f"the model gateway turned away {count} connection(s) with HTTP 503: it "
                    f"serves at most {self._thread.max_connections} at once and closes an idle "
                    f"one after {self._thread.idle_timeout:g} s, and the target kept more open "
                    "(a model client per deployment that is never closed leaks them)")
        return turned_away

    def unmount(self, base: str) -> None:
        name = base.rstrip("/").rsplit("/", 1)[-1]
        with self._lock:
            self._mounts.pop(name, None)

    def close(self) -> None:
        if self._started:
            self._thread.stop()
            self._started = False

    # --- the routes (httpd.App): POST /d/{mount}[/agents/{agent}]/v1/... -----------------

    def handle(self, request: Request) -> Answer:
        path = request.path
        parts = path.split("/", 3)  # "", "d", mount, the rest
        if len(parts) == 4 and parts[1] == "d":
            name, rest = unquote(parts[2]), "/" + parts[3]
            found = anthropic.route(rest)
            if found is not None:
                return self._messages(request, name, *found)
            is_responses, agent = route_responses(rest)
            if is_responses:
                return self._serve(request, name, None if agent is None else unquote(agent),
                                   _RESPONSES)
            if rest == CHAT_PATH:  # one base URL for every agent: by marker
                return self._serve(request, name, None, _CHAT)
        parts = path.split("/", 4)  # "", "d", mount, "agents", "{agent}/v1/chat/completions"
        if (len(parts) < 5 or parts[1] != "d" or parts[3] != "agents"
                or not parts[4].endswith(CHAT_PATH) or len(parts[4]) == len(CHAT_PATH)):
            return _error(404, f"{path} is not a chat completions route of the kit's gateway: "
                          f"use {{gatewayUrl}}/agents/{{agentId}}{CHAT_PATH}")
        return self._serve(request, unquote(parts[2]), unquote(parts[4][:-len(CHAT_PATH)]),
                           _CHAT)

    def _open(self, request: Request, name: str, dialect: _Dialect
              ) -> Answer | tuple[Gateway, Known | None]:
        """The mount a request may reach, or the refusal: a method other than POST, a request
        a web page sent, a deployment closed."""
        if request.method != "POST":
            return dialect.error(405, f"{request.method} is not allowed: POST {dialect.what}",
                                 dialect.invalid)
        why = foreign(request)
        if why is not None:
            return dialect.error(403, why, dialect.permission)
        with self._lock:
            mount = self._mounts.get(name)
        if mount is None:
            return dialect.error(404, f"no deployment is served at /d/{name} (it was closed)",
                                 dialect.not_found)
        return mount

    def _serve(self, request: Request, name: str, agent: str | None, dialect: _Dialect
               ) -> Answer:
        """A model request in ``dialect``: ``agent`` from the path, or None to attribute it by
        the agent marker in its system text (:func:`.gateway_anthropic.find_marker`, which is
        cut out of the system text then, and always where ``dialect.cut``)."""
        mount = self._open(request, name, dialect)
        if isinstance(mount, Answer):
            return mount
        gateway, known = mount
        try:
            body = parse_chat(request.body)
            model_request = dialect.read(agent or "", body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            gateway.refuse_shape(f"not {dialect.request}: {exc}")
            return dialect.error(400, f"not {dialect.request}: {exc}", dialect.invalid)
        if agent is None or dialect.cut:
            marked, system, unmarked = anthropic.find_marker(model_request.system)
            if agent is None:
                agent = marked
            model_request = model_request.model_copy(update={"system": system,
                                                             "agent": agent or ""})
            if agent is None:
                reason = (unmarked or "not attributed").replace(MESSAGES_PATH, dialect.path)
                gateway.refuse(model_request, reason)
                return dialect.error(403, reason, dialect.permission)
        if known is not None and not _reported(known, agent):
            reason = (f"the target never reported an agent {agent!r} (in a result, its agent "
                      "list or its events): post as the agents your API reports")
            gateway.refuse(model_request, reason)
            return dialect.error(403, reason, dialect.permission)
        try:
            reply = call_with_timeout(lambda: gateway.complete(model_request),
                                      self.reply_timeout)
        except Stalled:
            return _no_retry(dialect.error(
                504, f"the scripted model stalled: no reply for agent {agent} within "
                f"{self.reply_timeout:g} s", dialect.timeout))
        except ModelFailure as exc:  # a failure the script meant: final, never retried
            return _no_retry(dialect.error(exc.status, str(exc), dialect.invalid))
        except Exception as exc:
            return _no_retry(dialect.error(500, str(exc) or type(exc).__name__, dialect.crash))
        with self._lock:
            self.calls += 1
        return dialect.answer(reply, body)

    def _messages(self, request: Request, name: str, agent: str | None, kind: str) -> Answer:
        """The Anthropic Messages routes (conformance/transports/gateway_anthropic.py):
        ``agent`` from the path, or None to attribute the request by its agent marker; a
        ``count_tokens`` is answered with an estimate and not recorded."""
        if kind != "count":
            return self._serve(request, name, agent, _MESSAGES)
        mount = self._open(request, name, _MESSAGES)
        if isinstance(mount, Answer):
            return mount
        try:
            return _json(anthropic.count_tokens(anthropic.parse(request.body)))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return anthropic.error(400, f"not {_MESSAGES.request}: {exc}")

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
