"""A Target that speaks the driver API over HTTP (``--target http://127.0.0.1:PORT``).

Every Deployment method is one ``POST`` of :mod:`.wire`'s route table; its methods are made from
that table, so a method added to the protocol is sent without further work. What the target
answers is judged before a check sees it (docs/architecture.md; docs/driver-api.md, "Errors"):

- a 4xx with a JSON error body ``{code, message, details}`` is the target's refusal: the same
  :class:`~subagent_tck.spec.TckError` an in-process target raises;
- anything else is the target breaking the protocol: a 5xx (it crashed), a body that is not
  JSON or not the result's shape, an unknown error code, a body over 8 MiB → ``PROTOCOL_ERROR``;
  no connection → ``TARGET_UNREACHABLE``; no answer within the timeout → ``TIMEOUT``. Each
  message says what the target did.

The model gateway (:class:`~.gateway_server.GatewayServer`) runs inside the kit on 127.0.0.1;
each deployment gets its own ``gatewayUrl``. A run that reports completion without one model
request through it ignored the gateway: ``PROTOCOL_ERROR``. The gateway attributes a request
only to an agent id the target reported: in a result (an AgentRef, a RunResult, its agent list,
its events), or, for an id not seen yet (a child asking its model before ``start`` returns), in
the agent list or the events it answers when asked at that moment (docs/driver-api.md,
"Security and processes").
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ValidationError

from subagent_tck.spec import ErrorCode, StopReason, TckError

from ..core.gateway import Gateway
from ..core.protocol import (
    PROTOCOL_VERSION,
    AgentRef,
    DeploymentConfig,
    Event,
    Observation,
    RunResult,
    TargetInfo,
)
from ..core.target import Deployment
from ..core.transport import TransportError
from .connections import BodyTooLarge, Connections, Cut, NotHttp, Overrun, Unreachable
from .gateway_server import GatewayServer
from .wire import (
    BATCH_SEGMENT,
    DEPLOYMENT_PATH,
    DEPLOYMENTS_PATH,
    GATEWAY_FIELD,
    INFO_ADAPTER,
    INFO_PATH,
    KIT_CODES,
    MAX_BODY,
    OPERATIONS,
    VERSION_HEADER,
    Malformed,
    Operation,
    check_protocol,
    dumps,
    loads,
    to_json,
    validate,
    validation_summary,
)

__all__ = ["DEFAULT_TIMEOUT", "HttpDeployment", "HttpTarget", "TransportError", "agents_in"]

DEFAULT_TIMEOUT = 30.0
_NOTHING = object()
_RUNS = frozenset({"start", "run_turn"})


class _WireError(BaseModel):
    code: str
    message: str
    details: dict[str, Any] = {}


def _snippet(data: bytes, limit: int = 200) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return repr(text) + (" ..." if len(data) > limit else "")


class HttpTarget:
    """The driver API at ``base_url``. Safe to use from several threads.

    ``timeout`` bounds every request (seconds, the whole answer included); ``diagnose``, when
    given, adds to an unreachable/broken-target message what is known about the target (the
    launcher reports whether the adapter process exited, with its stderr tail).
    """

    def __init__(self, base_url: str, *, timeout: float = DEFAULT_TIMEOUT,
                 connect_timeout: float = 5.0,
                 diagnose: Callable[[float], str | None] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.connect_timeout = min(connect_timeout, timeout)
        self._diagnose = diagnose
        self._connections: Connections | None = None
        self._headers = {"Content-Type": "application/json",
                         "Accept": "application/json", VERSION_HEADER: PROTOCOL_VERSION}
        self._lock = threading.Lock()
        self._gateway: GatewayServer | None = None
        self._closed = False
        #: whether the target serves the optional batch route (None: not asked yet)
        self.batches: bool | None = None

    # --- requests ------------------------------------------------------------------------

    def _pool(self) -> Connections:
        """Kept connections shared by every thread (:mod:`.connections`: a request is one
        write, its answer parsed in C; benchmarks/bench_http.py)."""
        pool = self._connections
        if pool is not None:
            return pool
        with self._lock:
            if self._connections is None:
                try:
                    self._connections = Connections(self.base_url, timeout=self.timeout,
                                                    connect_timeout=self.connect_timeout,
                                                    headers=self._headers)
                except ValueError as exc:
                    raise TckError(ErrorCode.USAGE, f"{exc}: give the adapter's base URL, "
                                   "e.g. http://127.0.0.1:8080") from None
            return self._connections

    def _hint(self, settle: float = 0.0) -> str:
        """What ``diagnose`` knows; ``settle``: seconds to let a dying adapter finish exiting
        (its connection closes a moment before its exit status can be read)."""
        note = self._diagnose(settle) if self._diagnose else None
        return f" ({note})" if note else ""

    def request(self, method: str, path: str, payload: Any = _NOTHING, *, what: str,
                content: bytes | None = None) -> Any:
        """Send one request (``payload`` encoded, or ``content`` as it is); the parsed JSON
        answer (None for an empty one), or TckError."""
        status, data = self.exchange(method, path, payload, what=what, content=content)
        return self._interpret(status, data, what)

    def exchange(self, method: str, path: str, payload: Any = _NOTHING, *, what: str,
                 content: bytes | None = None) -> tuple[int, bytes]:
        """Send one request; its status and body as they came (a TckError when no HTTP answer
        came: unreachable, cut, timed out, too large, not HTTP)."""
        if self._closed:
            raise TckError(ErrorCode.USAGE, f"the HTTP target {self.base_url} is closed")
        if payload is not _NOTHING:
            try:
                content = dumps(payload)
            except TypeError as exc:
                raise TckError(ErrorCode.USAGE, f"{what}: {exc}") from None
        deadline = time.monotonic() + self.timeout
        pool = self._pool()
        try:
            status, data = pool.exchange(method, path, content, limit=MAX_BODY,
                                         deadline=deadline)
        except BodyTooLarge as exc:
            if exc.announced is not None:
                raise self._broken(what, f"announced a body of {exc.announced} bytes, more "
                                   f"than the limit of {MAX_BODY}", kind="http") from None
            raise self._broken(what, f"sent a body of more than {MAX_BODY} bytes",
                               kind="http") from None
        except Overrun:
            raise TransportError(ErrorCode.TIMEOUT, f"the target did not finish answering "
                                 f"{what} within {self.timeout:g} s{self._hint()}",
                                 "timeout") from None
        except TimeoutError:  # socket.timeout: connecting, sending or waiting for the answer
            raise TransportError(ErrorCode.TIMEOUT, f"the target did not answer {what} "
                                 f"({method} {self.base_url}{path}) within {self.timeout:g} s"
                                 f"{self._hint()}", "timeout") from None
        except Unreachable as exc:
            raise TransportError(ErrorCode.TARGET_UNREACHABLE, f"cannot connect to the target "
                                 f"at {self.base_url} ({exc.error}){self._hint(0.5)}: is the "
                                 "adapter running?", "connect") from None
        except Cut as exc:
            if exc.received:
                raise TransportError(ErrorCode.TARGET_UNREACHABLE, f"the connection to the "
                                     f"target broke during {what}: the answer stopped after "
                                     f"{exc.received} bytes{self._hint(0.5)}", "reset") \
                    from None
            raise TransportError(ErrorCode.TARGET_UNREACHABLE, f"the target closed the "
                                 f"connection without answering {what}{self._hint(0.5)}",
                                 "reset") from None
        except (ConnectionResetError, BrokenPipeError):
            raise TransportError(ErrorCode.TARGET_UNREACHABLE, f"the target closed the "
                                 f"connection without answering {what}{self._hint(0.5)}",
                                 "reset") from None
        except NotHttp as exc:
            raise self._broken(what, f"answered with something that is not HTTP: {exc}",
                               kind="http") from None
        except OSError as exc:
            raise TransportError(ErrorCode.TARGET_UNREACHABLE, f"the connection to the target "
                                 f"broke during {what}: {type(exc).__name__}: {exc}"
                                 f"{self._hint(0.5)}", "reset") from None
        return status, data

    def _broken(self, what: str, did: str, kind: str | None = None) -> TckError:
        """PROTOCOL_ERROR: the target ``did`` something off the protocol; a
        :class:`TransportError` of ``kind`` when that was below HTTP's answer."""
        message = f"the target {did} (answering {what}){self._hint()}"
        if kind is not None:
            return TransportError(ErrorCode.PROTOCOL_ERROR, message, kind)
        return TckError(ErrorCode.PROTOCOL_ERROR, message)

    def refusal(self, error: Any, status: int, what: str) -> TckError:
        """The TckError of a parsed 4xx error body: the target's refusal, or PROTOCOL_ERROR
        when the body is not ``{code, message, details}``, its code unknown or the kit's."""
        try:
            wire = _WireError.model_validate(error)
        except ValidationError:
            return self._broken(what, f"answered HTTP {status} without a JSON error body "
                                f"{{code, message, details}}: {_snippet(dumps(error))}")
        try:
            code = ErrorCode(wire.code)
        except ValueError:
            return self._broken(what, f"refused with the unknown error code {wire.code!r} "
                                f"({wire.message}); use a code of docs/driver-api.md")
        if code in KIT_CODES:
            return self._broken(what, f"answered HTTP {status} {code.value}: {wire.message}")
        return TckError(code, wire.message, wire.details)

    def _interpret(self, status: int, data: bytes, what: str) -> Any:
        if 200 <= status < 300:
            if not data.strip():
                return None
            try:
                return loads(data)
            except Malformed as exc:
                raise self._broken(what, f"answered HTTP {status} with a body that is not "
                                   f"standard JSON ({exc}): {_snippet(data)}") from None
        if 400 <= status < 500:
            try:
                body = loads(data)
            except Malformed:
                raise self._broken(what, f"answered HTTP {status} without a JSON error body "
                                   f"{{code, message, details}}: {_snippet(data)}") from None
            raise self.refusal(body, status, what)
        if status >= 500:
            detail = data.decode("utf-8", "replace")[:500]
            with contextlib.suppress(Malformed, ValidationError):
                detail = _WireError.model_validate(loads(data)).message
            raise self._broken(what, f"crashed: HTTP {status}: {detail}")
        raise self._broken(what, f"answered with HTTP status {status}")

    # --- the Target protocol -------------------------------------------------------------

    def info(self) -> TargetInfo:
        data = self.request("GET", INFO_PATH, what="info")
        try:
            info: TargetInfo = validate(INFO_ADAPTER, data)
        except ValidationError as exc:
            if isinstance(data, dict) and isinstance(data.get("protocol"), str):
                check_protocol(data["protocol"], f"the target at {self.base_url}")
            raise self._broken("info", f"answered info with {validation_summary(exc)}") \
                from None
        check_protocol(info.protocol, f"the target at {self.base_url}")
        return info

    def _gateway_server(self) -> GatewayServer:
        with self._lock:
            if self._gateway is None:
                self._gateway = GatewayServer(reply_timeout=self.timeout).start()
            return self._gateway

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> HttpDeployment:
        server = self._gateway_server()
        made: list[HttpDeployment] = []  # the deployment, once the target named it
        base = server.mount(gateway, known=lambda agent: bool(made) and made[0].knows(agent))
        try:
            body = {**to_json(config), GATEWAY_FIELD: base}
            data = self.request("POST", DEPLOYMENTS_PATH, body, what="deploy")
            ident = data.get("deployment") if isinstance(data, dict) else None
            if not isinstance(ident, str) or not ident:
                raise self._broken("deploy", f'answered {_snippet(dumps(data))}, not '
                                   '{"deployment": "<id>"}')
        except BaseException:
            server.unmount(base)
            raise
        made.append(HttpDeployment(self, ident, gateway, base))
        return made[0]

    def close(self) -> None:
        self._closed = True
        with self._lock:
            pool, self._connections = self._connections, None
            gateway, self._gateway = self._gateway, None
        if pool is not None:
            pool.close()
        if gateway is not None:
            gateway.close()


class HttpDeployment:
    """One deployment of an :class:`HttpTarget`; its methods are made from the route table."""

    def __init__(self, target: HttpTarget, ident: str, gateway: Gateway, gateway_url: str) -> None:
        self.target = target
        self.id = ident
        self.gateway = gateway
        self.gateway_url = gateway_url
        self._path = DEPLOYMENT_PATH.format(id=quote(ident, safe=""))
        self._closed = False
        #: agent ids the target reported in its answers (see :meth:`knows`)
        self.reported: set[str] = set()

    def knows(self, agent: str) -> bool:
        """Whether the target reported ``agent``: in an answer so far, else in its agent list
        or its events asked now (the gateway asks when an id it has not seen posts)."""
        if agent in self.reported:
            return True
        for name in ("agents", "events"):
            if self._closed:
                return False
            getattr(self, name)()  # what it answers is added to reported
            if agent in self.reported:
                return True
        return False

    def call(self, operation: Operation, body: dict[str, Any] | None,
             content: bytes | None = None) -> Any:
        """Send ``body`` (or its ``content``, already encoded) to the operation's route."""
        before = len(self.gateway.exchanges)
        data = self.target.request("POST", f"{self._path}/{operation.segment}",
                                   _NOTHING if body is None else body, what=operation.segment,
                                   content=content)
        return self._result(operation, data, before)

    def _result(self, operation: Operation, data: Any, before: int) -> Any:
        """The Python result of an operation's answer, judged (docs/driver-api.md#errors)."""
        if operation.returns_nothing:
            return None
        try:
            result = operation.decode_result(data)
        except ValidationError as exc:
            raise self.target._broken(operation.segment, f"answered {operation.segment} with "
                                      f"{validation_summary(exc)}") from None
        if operation.name == "agents":
            self.reported.update(a for a in result if isinstance(a, str))
        else:
            self.reported.update(agents_in(result))
        if (operation.name in _RUNS and isinstance(result, RunResult)
                and result.stopReason is StopReason.COMPLETED
                and len(self.gateway.exchanges) == before):
            raise self.target._broken(operation.segment, "reported a completed run without "
                                      f"one request to the model gateway at {self.gateway_url}"
                                      ": its agents must use gatewayUrl as their model")
        return result

    def batch(self, calls: Sequence[tuple[str, dict[str, Any]]]
              ) -> list[tuple[Any, TckError | None]] | None:
        """Several operations in one request (``(name, keyword arguments)``, Python names),
        each answered as it would be alone: ``(result, None)`` or ``(None, its refusal)``, in
        order (docs/driver-api.md#batch). None when the target has no batch route (then it
        ran nothing: send the calls one by one); a target that breaks the protocol in any
        entry raises, as that call alone would."""
        if self.target.batches is False:
            return None
        operations = [OPERATIONS[name] for name, _ in calls]
        body = {"calls": [{"operation": op.segment, "arguments": op.bind((), arguments)}
                          for op, (_, arguments) in zip(operations, calls, strict=True)]}
        before = len(self.gateway.exchanges)
        what = f"{BATCH_SEGMENT} ({', '.join(op.segment for op in operations)})"
        status, data = self.target.exchange("POST", f"{self._path}/{BATCH_SEGMENT}", body,
                                            what=what)
        if status in (404, 405) and self.target.batches is None and _no_route(data):
            self.target.batches = False  # an adapter without the optional route
            return None
        answer = self.target._interpret(status, data, what)
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list) or len(results) != len(calls):
            raise self.target._broken(what, f"answered the batch of {len(calls)} calls with "
                                      f"{_snippet(dumps(answer))}, not {{\"results\": [...]}} "
                                      "with one entry per call")
        self.target.batches = True
        out: list[tuple[Any, TckError | None]] = []
        for operation, entry in zip(operations, results, strict=True):
            if isinstance(entry, dict) and set(entry) == {"error"}:
                error = self.target.refusal(entry["error"], 422, operation.segment)
                if error.code in KIT_CODES:  # a crash, a kit code, a malformed error body
                    raise error
                out.append((None, error))
            elif isinstance(entry, dict) and set(entry) == {"result"}:
                out.append((self._result(operation, entry["result"], before), None))
            else:
                raise self.target._broken(what, f"answered a batch entry with "
                                          f"{_snippet(dumps(entry))}, not {{\"result\": ...}} "
                                          "or {\"error\": {code, message, details}}")
        return out

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        server = self.target._gateway
        try:
            self.target.request("DELETE", self._path, what="close")
        finally:
            if server is not None:
                server.unmount(self.gateway_url)


def _no_route(data: bytes) -> bool:
    """Whether a 404/405 body is the protocol's "no such operation" (PROTOCOL_ERROR)."""
    try:
        body = loads(data)
    except Malformed:
        return False
    return isinstance(body, dict) and body.get("code") == ErrorCode.PROTOCOL_ERROR.value


def agents_in(result: Any) -> set[str]:
    """The agent ids an answer reports: of AgentRefs, RunResults, events and observations (an
    agent list is read by its operation's name: other lists of strings name tools)."""
    if isinstance(result, (AgentRef, RunResult)):
        return {result.agent}
    if isinstance(result, Event):
        return {result.agent} if result.agent else set()
    if isinstance(result, Observation):
        return set(result.agents) | agents_in(result.events)
    if isinstance(result, list):
        found: set[str] = set()
        for item in result:
            found |= agents_in(item)
        return found
    return set()


def _method(operation: Operation) -> Callable[..., Any]:
    def method(self: HttpDeployment, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs and operation.empty_body is not None:
            return self.call(operation, None, operation.empty_body)  # encoded once
        return self.call(operation, operation.bind(args, kwargs))

    original = getattr(Deployment, operation.name)
    method.__name__ = operation.name
    method.__qualname__ = f"HttpDeployment.{operation.name}"
    method.__doc__ = operation.doc or None
    method.__signature__ = inspect.signature(original)  # type: ignore[attr-defined]
    return method


for _operation in OPERATIONS.values():
    setattr(HttpDeployment, _operation.name, _method(_operation))
del _operation
