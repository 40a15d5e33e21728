"""Any in-process Target behind the HTTP driver API (``subagent-tck serve``).

:func:`create_app` serves a Target with :mod:`.wire`'s route table: ``GET /v1/info``,
``POST /v1/deployments`` (a DeploymentConfig plus ``gatewayUrl``), ``POST
/v1/deployments/{id}/<operation>`` with the operation's keyword arguments, ``DELETE
/v1/deployments/{id}``. A deployment's model is a :class:`~.gateway_server.GatewayClient` that
asks the kit's gateway at ``gatewayUrl``, so the reference behind this server is certified the
way a runtime in another language is (DESIGN.md, "How the kit observes a target").

Request bodies are read as JavaScript reads JSON (DE domain decision): ``-0`` stays negative
zero, integers beyond 2^53 become doubles, and a raw ``NaN``/``Infinity`` token makes the
request malformed: ``400 INVALID_REQUEST`` before the target is called, so nothing changes.
Refusals are 4xx with ``{code, message, details}``; a crash of the target is a 500.

``subagent-tck serve`` binds 127.0.0.1 by default and prints, as its first stdout line,
``SUBAGENT_TCK_READY http://HOST:PORT`` (the handshake of ``cmd:`` targets).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

import httpx
import uvicorn
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from subagent_tck.spec import ErrorCode, TckError

from .gateway_server import GatewayClient
from .loopback import LOOPBACK, bind, http_client, run_blocking, uvicorn_config
from .protocol import PROTOCOL_VERSION
from .target import Deployment, Target
from .wire import (
    BY_SEGMENT,
    CONFIG_ADAPTER,
    DEPLOYMENT_PATH,
    DEPLOYMENTS_PATH,
    GATEWAY_FIELD,
    INFO_PATH,
    MAX_BODY,
    READY_WORD,
    VERSION_HEADER,
    Malformed,
    dumps,
    error_status,
    loads,
    validate,
    validation_summary,
)


def _answer(value: Any, status: int = 200) -> Response:
    return Response(dumps(value), status, media_type="application/json",
                    headers={VERSION_HEADER: PROTOCOL_VERSION})


def _refusal(error: TckError, status: int | None = None) -> Response:
    return _answer(error.to_json(), status or error_status(error.code))


def _bad(message: str, **details: Any) -> TckError:
    return TckError(ErrorCode.INVALID_REQUEST, message, details or None)


EMPTY: Any = object()  # no body at all (allowed where no argument is required)


async def _body(request: Request) -> Any:
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise TckError(ErrorCode.INVALID_REQUEST,
                           f"the request body is larger than {MAX_BODY} bytes")
    if not data.strip():
        return EMPTY
    try:
        return loads(bytes(data))
    except Malformed as exc:
        raise _bad(f"the request body is not standard JSON: {exc}") from None


class DriverApp:
    """The state behind the routes: the target and its open deployments."""

    def __init__(self, target: Target, *, model_timeout: float = 120.0) -> None:
        self.target = target
        self.model_timeout = model_timeout
        self._lock = threading.Lock()
        self._deployments: dict[str, tuple[Deployment, GatewayClient]] = {}
        self._ids = itertools.count(1)
        self._http: httpx.Client | None = None  # shared by every deployment's model client

    def _model_client(self, url: str) -> httpx.Client:
        with self._lock:
            if self._http is None:
                self._http = http_client(url, self.model_timeout)
            return self._http

    def _deployment(self, ident: str) -> Deployment:
        with self._lock:
            entry = self._deployments.get(ident)
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
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise _bad(f"{GATEWAY_FIELD!r} must be the model gateway's http:// base URL")
        try:
            config = validate(CONFIG_ADAPTER, fields)
        except ValidationError as exc:
            raise _bad(f"the deployment config is malformed: {validation_summary(exc)}") \
                from None
        shared = self._model_client(url) if url.startswith("http://") else None
        gateway = GatewayClient(url, timeout=self.model_timeout, client=shared)
        try:
            deployment = self.target.deploy(config, gateway)
        except BaseException:
            gateway.close()
            raise
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
        if self._http is not None:
            self._http.close()
        self.target.close()

    # --- handlers ------------------------------------------------------------------------

    async def _guarded(self, work: Callable[[], Any], status: int = 200,
                       inline: bool = False) -> Response:
        """Answer with ``work()``'s result, its refusal, or a 500 when it crashed. ``work`` runs
        on a worker thread, so that a run waiting for the model leaves the server free to
        answer the calls a scripted reply makes meanwhile; ``inline`` (observations, which
        never wait for the model) saves the two thread switches."""
        try:
            result = work() if inline else await run_blocking(work)
            return _answer(result, status)
        except TckError as exc:
            return _refusal(exc)
        except Exception as exc:
            return _answer({"code": ErrorCode.PROTOCOL_ERROR.value,
                            "message": f"the target crashed: {type(exc).__name__}: {exc}",
                            "details": {"traceback": traceback.format_exc(limit=20)}}, 500)

    async def info(self, request: Request) -> Response:
        return await self._guarded(self.target.info)

    async def create(self, request: Request) -> Response:
        try:
            body = await _body(request)
        except TckError as exc:
            return _refusal(exc)
        return await self._guarded(lambda: self.deploy(body), 201)

    async def delete(self, request: Request) -> Response:
        ident = request.path_params["id"]
        return await self._guarded(lambda: self.close_deployment(ident))

    async def operate(self, request: Request) -> Response:
        segment = request.path_params["operation"]
        operation = BY_SEGMENT.get(segment)
        try:
            if operation is None:
                raise TckError(ErrorCode.PROTOCOL_ERROR, f"there is no operation {segment!r} "
                               "in driver protocol " + PROTOCOL_VERSION, {"operation": segment})
            deployment = self._deployment(request.path_params["id"])
            body = await _body(request)
            kwargs = operation.decode_arguments({} if body is EMPTY else body)
        except TckError as exc:
            return _refusal(exc)
        method = getattr(deployment, operation.name)
        return await self._guarded(lambda: method(**kwargs), inline=operation.observes)


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    message = (f"{request.method} {request.url.path} is not a route of driver protocol "
               f"{PROTOCOL_VERSION}: see docs/driver-api.md")
    return _answer({"code": ErrorCode.PROTOCOL_ERROR.value, "message": message}, status)


def create_app(target: Target, *, model_timeout: float = 120.0) -> Starlette:
    """A Starlette app serving ``target`` behind the driver API (``app.state.driver``)."""
    driver = DriverApp(target, model_timeout=model_timeout)
    routes = [
        Route(INFO_PATH, driver.info, methods=["GET"]),
        Route(DEPLOYMENTS_PATH, driver.create, methods=["POST"]),
        Route(DEPLOYMENT_PATH, driver.delete, methods=["DELETE"]),
        Route(DEPLOYMENT_PATH + "/{operation}", driver.operate, methods=["POST"]),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error})
    app.state.driver = driver
    return app


# --- subagent-tck serve ----------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default=LOOPBACK,
                        help="interface to bind (default 127.0.0.1; keep it on loopback)")
    parser.add_argument("--port", type=int, default=0,
                        help="port to bind (default 0: a free port, printed on the ready line)")
    parser.add_argument("--target", default="reference", metavar="TARGET",
                        help="the in-process target to serve: reference (default) or "
                             "python:MODULE:FACTORY")
    parser.add_argument("--model-timeout", type=float, default=120.0, metavar="S",
                        help="how long an agent waits for the kit's model gateway (default 120)")


def serve_main(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM. The first stdout line is the ready handshake."""
    from .targets import load_target

    if not 0 <= args.port <= 65535:
        raise TckError(ErrorCode.USAGE, f"--port {args.port} is not a port: give 0..65535")
    target = load_target(args.target)
    app = create_app(target, model_timeout=args.model_timeout)
    sock = bind(args.host, args.port)
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"{READY_WORD} http://{host}:{port}", flush=True)
    print(f"serving {args.target} behind driver protocol {PROTOCOL_VERSION} on "
          f"http://{host}:{port} (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        uvicorn.Server(uvicorn_config(app)).run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C: uvicorn shut down gracefully, then re-raised it
        pass
    finally:
        app.state.driver.close()
        sock.close()
    return 0


run = serve_main


def main(argv: list[str] | None = None) -> int:
    """``python -m subagent_tck.conformance.http_server``: the same as ``subagent-tck serve``."""
    parser = argparse.ArgumentParser(prog="subagent-tck serve",
                                     description="Serve a target behind the HTTP driver API.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return serve_main(args)
    except TckError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2 if exc.code is ErrorCode.USAGE else 3


if __name__ == "__main__":
    sys.exit(main())
