"""Any in-process Target behind the HTTP driver API (``subagent-tck serve``).

:func:`create_app` serves a Target with :mod:`.wire`'s route table: ``GET /v1/info``,
``POST /v1/deployments`` (a DeploymentConfig plus ``gatewayUrl``), ``POST
/v1/deployments/{id}/<operation>`` with the operation's keyword arguments, ``DELETE
/v1/deployments/{id}``. A deployment's model is a :class:`~.gateway_server.GatewayClient` that
asks the kit's gateway at ``gatewayUrl``, so the reference behind this server is certified the
way a runtime in another language is (docs/architecture.md).

Request bodies are read as JavaScript reads JSON (DE domain decision): ``-0`` stays negative
zero, integers beyond 2^53 become doubles, and a raw ``NaN``/``Infinity`` token makes the
request malformed: ``400 INVALID_REQUEST`` before the target is called, so nothing changes.
Refusals are 4xx with ``{code, message, details}``; a crash of the target is a 500.

The server is :mod:`.httpd`: each call runs on the thread of the connection it came on, so a
run waiting for the model holds only its own connection while the calls a scripted reply makes
meanwhile arrive on another one and are answered at once; nothing waits for a thread switch.

``subagent-tck serve`` binds 127.0.0.1 by default and prints, as its first stdout line,
``SUBAGENT_TCK_READY http://HOST:PORT`` (the handshake of ``cmd:`` targets).

Nothing but a client of the API may drive it (docs/driver-api.md, "Security and processes"): a
``POST`` whose ``Content-Type`` is not JSON is refused with 415 (a web page can send
``text/plain`` without asking first), a request with a foreign ``Origin`` or a ``Host`` off
loopback with 403 (a web page, or DNS rebinding), and a deployment's runtime posts only to a
loopback ``gatewayUrl``. Binding off loopback (``--unsafe-bind-all-interfaces``) and a remote
gateway (``--allow-remote-gateway``) are flags that say what they risk.
"""

from __future__ import annotations

import argparse
import itertools
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from subagent_tck.spec import ErrorCode, TckError

from ..core.protocol import PROTOCOL_VERSION
from ..core.target import Deployment, Target
from . import busypoll
from .connections import Connections
from .gateway_server import GatewayClient, model_connections
from .httpd import Answer, HttpServer, Request, foreign
from .loopback import LOOPBACK, bind, is_loopback_host
from .wire import (
    BATCH_SEGMENT,
    BY_SEGMENT,
    CONFIG_ADAPTER,
    GATEWAY_FIELD,
    READY_WORD,
    VERSION_HEADER,
    Malformed,
    batch_calls,
    dumps,
    error_status,
    loads,
    validate,
    validation_summary,
)

_HEADERS = ((VERSION_HEADER, PROTOCOL_VERSION),)
UNSAFE_BIND = "--unsafe-bind-all-interfaces"
REMOTE_GATEWAY = "--allow-remote-gateway"


def _answer(value: Any, status: int = 200) -> Answer:
    return Answer(status, dumps(value), headers=_HEADERS)


def _refusal(error: TckError, status: int | None = None) -> Answer:
    return _answer(error.to_json(), status or error_status(error.code))


def _crash(exc: Exception) -> Answer:
    """A 500: the target (or its result's encoding) raised; call it inside the except block."""
    return _answer({"code": ErrorCode.PROTOCOL_ERROR.value,
                    "message": f"the target crashed: {type(exc).__name__}: {exc}",
                    "details": {"traceback": traceback.format_exc(limit=20)}}, 500)


def _bad(message: str, **details: Any) -> TckError:
    return TckError(ErrorCode.INVALID_REQUEST, message, details or None)


EMPTY: Any = object()  # no body at all (allowed where no argument is required)


def _body(data: bytes) -> Any:
    if data == b"{}":  # what a call without arguments sends
        return {}
    if not data.strip():
        return EMPTY
    try:
        return loads(data)
    except Malformed as exc:
        raise _bad(f"the request body is not standard JSON: {exc}") from None


def _not_a_route(request: Request, status: int = 404) -> TckError:
    return TckError(ErrorCode.PROTOCOL_ERROR, f"{request.method} {request.path} is not a route "
                    f"of driver protocol {PROTOCOL_VERSION}: see docs/driver-api.md")


def _operation(segment: str) -> Any:
    operation = BY_SEGMENT.get(segment)
    if operation is None:
        raise TckError(ErrorCode.PROTOCOL_ERROR, f"there is no operation {segment!r} "
                       "in driver protocol " + PROTOCOL_VERSION, {"operation": segment})
    return operation


class DriverApp:
    """The driver API in front of a target: its open deployments, and the routes (an
    :class:`~.httpd.App`). Each call runs on the thread of the connection it came on."""

    def __init__(self, target: Target, *, model_timeout: float = 120.0, any_host: bool = False,
                 remote_gateway: bool = False) -> None:
        self.target = target
        self.model_timeout = model_timeout
        #: answer a Host header off loopback (the server is bound off loopback on purpose)
        self.any_host = any_host
        #: let a deployment's runtime post to a gatewayUrl off loopback
        self.remote_gateway = remote_gateway
        self._lock = threading.Lock()
        self._deployments: dict[str, tuple[Deployment, GatewayClient]] = {}
        self._ids = itertools.count(1)
        #: kept connections to each model gateway origin, shared by its deployments
        self._models: dict[str, Connections] = {}

    def _model_connections(self, url: str) -> Connections:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        with self._lock:
            if origin not in self._models:
                self._models[origin] = model_connections(origin, self.model_timeout)
            return self._models[origin]

    def _deployment(self, ident: str) -> Deployment:
        entry = self._deployments.get(ident)  # one dict read: atomic, no lock needed
        if entry is None:
            raise TckError(ErrorCode.PROTOCOL_ERROR, f"there is no open deployment {ident!r}: "
                           "create one with POST /v1/deployments")
        return entry[0]

    def deploy(self, body: Any) -> dict[str, str]:
        if not isinstance(body, dict):  # EMPTY included: a gatewayUrl is required
            raise _bad("the body of POST /v1/deployments must be a JSON object: a "
                       f"DeploymentConfig with {GATEWAY_FIELD!r}")
        fields = dict(body)
        url = fields.pop(GATEWAY_FIELD, None)
        try:
            host = urlsplit(url).hostname if isinstance(url, str) else None
        except ValueError:
            host = None
        if not isinstance(url, str) or not url.startswith(("http://", "https://")) or not host:
            raise _bad(f"{GATEWAY_FIELD!r} must be the model gateway's http:// base URL")
        if not self.remote_gateway and not is_loopback_host(host):
            raise _bad(f"{GATEWAY_FIELD!r} names the host {host!r}, which is not a loopback "
                       "address: this server's runtime posts only to a gateway on this machine "
                       f"(serve it with {REMOTE_GATEWAY} to allow another)",
                       gatewayHost=host)
        try:
            config = validate(CONFIG_ADAPTER, fields)
        except ValidationError as exc:
            raise _bad(f"the deployment config is malformed: {validation_summary(exc)}") \
                from None
        gateway = GatewayClient(url, timeout=self.model_timeout,
                                connections=self._model_connections(url))
        deployment = self.target.deploy(config, gateway)
        with self._lock:
            ident = f"d{next(self._ids)}"
            self._deployments[ident] = (deployment, gateway)
        return {"deployment": ident}

    def close_deployment(self, ident: str) -> None:
        with self._lock:
            entry = self._deployments.pop(ident, None)
        if entry is None:
            raise TckError(ErrorCode.PROTOCOL_ERROR, f"there is no open deployment {ident!r}")
        deployment, gateway = entry
        try:
            deployment.close()
        finally:
            gateway.close()

    def close(self) -> None:
        with self._lock:
            idents = list(self._deployments)
        for ident in idents:
            try:
                self.close_deployment(ident)
            except Exception:  # shutting down: the rest still get closed
                traceback.print_exc()
        with self._lock:
            models, self._models = list(self._models.values()), {}
        for connections in models:
            connections.close()
        self.target.close()

    # --- the routes (httpd.App) ----------------------------------------------------------

    def handle(self, request: Request) -> Answer:
        """``GET /v1/info``, ``POST /v1/deployments``, ``DELETE /v1/deployments/{id}``,
        ``POST /v1/deployments/{id}/{operation}``; anything else is a structured 404/405."""
        refused = self._guard(request)
        if refused is not None:
            return refused
        try:
            segments = request.segments()
            if len(segments) == 4 and segments[0] == "v1" and segments[1] == "deployments":
                return self._operate(request, segments[2], segments[3])  # the common case
            if len(segments) < 2 or segments[0] != "v1":
                raise _not_a_route(request)
            if segments[1:] == ["info"]:
                return self._route("GET", request, self.target.info)
            if segments[1] != "deployments":
                raise _not_a_route(request)
            if len(segments) == 2:
                return self._route("POST", request, lambda: self.deploy(_body(request.body)),
                                   201)
            if len(segments) == 3:
                return self._route("DELETE", request,
                                   lambda: self.close_deployment(segments[2]))
            raise _not_a_route(request)
        except TckError as exc:
            return _refusal(exc)

    def _guard(self, request: Request) -> Answer | None:
        """403 for a request a web page sent, 415 for a POST whose body is not declared JSON
        (docs/driver-api.md#security-and-processes)."""
        why = foreign(request, any_host=self.any_host)
        if why is not None:
            return _answer({"code": ErrorCode.INVALID_REQUEST.value, "message": why,
                            "details": {}}, 403)
        if request.method == "POST":
            kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if kind != "application/json" and not (kind.startswith("application/")
                                                   and kind.endswith("+json")):
                return _answer({"code": ErrorCode.INVALID_REQUEST.value, "message":
                                f"a POST must send Content-Type: application/json (got "
                                f"{kind[:100] or 'none'!r})", "details": {}}, 415)
        return None

    def _route(self, method: str, request: Request, work: Callable[[], Any],
               status: int = 200) -> Answer:
        if request.method != method:
            return _refusal(_not_a_route(request), 405)
        return self._guarded(work, status)

    def _operate(self, request: Request, ident: str, segment: str) -> Answer:
        if request.method != "POST":
            return _refusal(_not_a_route(request), 405)
        if segment == BATCH_SEGMENT:
            return self._batch(ident, _body(request.body))
        operation = _operation(segment)
        deployment = self._deployment(ident)
        body = _body(request.body)
        kwargs = operation.decode_arguments({} if body is EMPTY else body)
        try:
            return _answer(getattr(deployment, operation.name)(**kwargs))
        except TckError as exc:
            return _refusal(exc)
        except Exception as exc:
            return _crash(exc)

    def _batch(self, ident: str, body: Any) -> Answer:
        """Several calls in one request, in order, each answered as it would be alone
        (docs/driver-api.md#batch): a refusal or a crash of one does not stop the next."""
        calls = batch_calls(body)
        deployment = self._deployment(ident)
        results: list[dict[str, Any]] = []
        for segment, arguments in calls:
            try:
                operation = _operation(segment)
                kwargs = operation.decode_arguments(arguments)
                results.append({"result": getattr(deployment, operation.name)(**kwargs)})
            except TckError as exc:
                results.append({"error": exc.to_json()})
            except Exception as exc:
                results.append({"error": {
                    "code": ErrorCode.PROTOCOL_ERROR.value,
                    "message": f"the target crashed: {type(exc).__name__}: {exc}",
                    "details": {"traceback": traceback.format_exc(limit=20)}}})
        return _answer({"results": results})

    @staticmethod
    def _guarded(work: Callable[[], Any], status: int = 200) -> Answer:
        """Answer with ``work()``'s result, its refusal, or a 500 when it crashed."""
        try:
            return _answer(work(), status)
        except TckError as exc:
            return _refusal(exc)
        except Exception as exc:
            return _crash(exc)

    def refuse(self, status: int, message: str) -> Answer:
        """What the HTTP server itself refuses (not HTTP, a head or body over the limit)."""
        if status >= 500:
            return _answer({"code": ErrorCode.PROTOCOL_ERROR.value, "message": message}, status)
        return _refusal(_bad(message))


def create_app(target: Target, *, model_timeout: float = 120.0, any_host: bool = False,
               remote_gateway: bool = False) -> DriverApp:
    """The driver API serving ``target``: serve it with :class:`~.httpd.HttpServer` (or
    :class:`~.httpd.ServerThread` inside the kit)."""
    return DriverApp(target, model_timeout=model_timeout, any_host=any_host,
                     remote_gateway=remote_gateway)


# --- subagent-tck serve ----------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default=LOOPBACK,
                        help="interface to bind (default 127.0.0.1); an address off loopback "
                             f"needs {UNSAFE_BIND}")
    parser.add_argument("--port", type=int, default=0,
                        help="port to bind (default 0: a free port, printed on the ready line)")
    parser.add_argument("--target", default="reference", metavar="TARGET",
                        help="the in-process target to serve: reference (default) or "
                             "python:MODULE:FACTORY")
    parser.add_argument("--model-timeout", type=float, default=120.0, metavar="S",
                        help="how long an agent waits for the kit's model gateway (default 120)")
    parser.add_argument(UNSAFE_BIND, action="store_true",
                        help="allow --host off loopback: anyone who reaches that interface can "
                             "drive the target and make it post to any gateway it is given")
    parser.add_argument(REMOTE_GATEWAY, action="store_true",
                        help="let deployments name a gatewayUrl off loopback: the runtime then "
                             "posts its agents' conversations to another machine")


def serve_main(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM. The first stdout line is the ready handshake."""
    from .targets import load_target

    if not 0 <= args.port <= 65535:
        raise TckError(ErrorCode.USAGE, f"--port {args.port} is not a port: give 0..65535")
    unsafe = bool(getattr(args, "unsafe_bind_all_interfaces", False))
    if not is_loopback_host(args.host):
        if not unsafe:
            raise TckError(ErrorCode.USAGE, f"--host {args.host} is not a loopback address: "
                           "anyone who reaches it could drive the target; keep the default "
                           f"127.0.0.1, or add {UNSAFE_BIND} if you mean it")
        print(f"warning: serving on {args.host} ({UNSAFE_BIND}): any machine that reaches "
              "this interface can drive the target; there is no authentication",
              file=sys.stderr, flush=True)
    target = load_target(args.target)
    app = create_app(target, model_timeout=args.model_timeout, any_host=unsafe,
                     remote_gateway=bool(getattr(args, "allow_remote_gateway", False)))
    server = HttpServer(app, bind(args.host, args.port), name="subagent-tck serve")
    port = server.port
    local = {"0.0.0.0": LOOPBACK, "::": "::1"}.get(args.host, args.host)  # reached from here
    host = f"[{local}]" if ":" in local else local
    print(f"{READY_WORD} http://{host}:{port}", flush=True)
    print(f"serving {args.target} behind driver protocol {PROTOCOL_VERSION} on "
          f"http://{host}:{port} (Ctrl-C stops)", file=sys.stderr, flush=True)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if main_thread else None
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: stop serving, close every deployment
        pass
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
        server.stop()
        app.close()
    return 0


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


run = serve_main


def main(argv: list[str] | None = None) -> int:
    """``python -m subagent_tck.conformance.transports.http_server``: the same as
    ``subagent-tck serve``."""
    parser = argparse.ArgumentParser(prog="subagent-tck serve",
                                     description="Serve a target behind the HTTP driver API.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        busypoll.window()  # a bad SUBAGENT_TCK_POLL_US: exit 2 before serving
        return serve_main(args)
    except TckError as exc:
        from ..core.clierror import report_error

        return report_error(exc)


if __name__ == "__main__":
    sys.exit(main())
