"""Schemathesis against a target's HTTP driver API (``subagent-tck fuzz-api --target TARGET``).

Requests are generated from the driver API's OpenAPI document (:mod:`.openapi`), valid ones and
malformed ones, against a live deployment of the target. Every answer must:

- never be a 5xx (a crash);
- conform: a status, content type and body the document allows;
- refuse malformed data with a 4xx whose body is a structured error ``{code, message}`` with a
  code of the protocol;
- leave the deployment's observable state unchanged when it refuses (its agents, sessions,
  events, tool invocations, providers, and every agent's view, prompt, tool schemas and SDK
  bindings): "a rejected operation changes nothing observable" (conformance/core/target.py).

Beyond the generated requests, fixed probes send what a generator does not: raw ``NaN`` and
``Infinity`` tokens (the DE domain decision: such a request is malformed, 400
``INVALID_REQUEST``), truncated JSON, bytes that are not UTF-8, a body over 8 MiB, unknown
operations and deployments.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

import httpx

from subagent_tck.spec import ErrorCode, TckError

from .core.gateway import Gateway
from .core.protocol import DeploymentConfig, ToolSpec
from .core.suggest import hint
from .core.target import Deployment
from .transports.http_target import HttpDeployment, HttpTarget
from .transports.loopback import http_client
from .transports.wire import DEPLOYMENTS_PATH, MAX_BODY, Malformed, dumps, loads

DEFAULT_EXAMPLES = 10
#: How many agents' scopes a snapshot reads (the root and the newest): most refusals name no
#: existing agent, and reading every scope after every request would dominate the run.
SCOPES = 4


@dataclass(frozen=True)
class FuzzFailure:
    operation: str
    check: str
    message: str
    reproduce: str = ""


@dataclass
class FuzzReport:
    target: str
    requests: int = 0
    operations: int = 0
    failures: list[FuzzFailure] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures

    def add(self, failure: FuzzFailure) -> None:
        if all((f.operation, f.check) != (failure.operation, failure.check)
               for f in self.failures):
            self.failures.append(failure)

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "ok": self.ok, "requests": self.requests,
                "operations": self.operations, "seconds": round(self.seconds, 3),
                "failures": [f.__dict__ for f in self.failures]}

    def text(self) -> str:
        lines = [f"fuzz-api {self.target}: {self.requests} requests over {self.operations} "
                 f"operations in {self.seconds:.1f} s: "
                 + ("no failure" if self.ok else f"{len(self.failures)} failure(s)")]
        for failure in self.failures:
            lines.append(f"FAIL {failure.operation} [{failure.check}] {failure.message}")
            if failure.reproduce:
                lines.append(f"     reproduce: {failure.reproduce}")
        return "\n".join(lines) + "\n"


class _Observer:
    """Snapshots of a deployment's observable state, cached while nothing was accepted."""

    def __init__(self, deployment: HttpDeployment) -> None:
        self.deployment = cast(Deployment, deployment)  # its methods come from the route table
        self._cached: Any = None

    def snapshot(self) -> Any:
        d = self.deployment

        def read(observe: Callable[[], Any]) -> Any:
            try:
                return observe()
            except TckError as exc:  # a broken observer is judged by its own requests
                return {"unobservable": exc.code.value}

        agents = read(d.agents)
        agents = agents if isinstance(agents, list) else []
        watched = dict.fromkeys(agents[:1] + agents[-SCOPES + 1:])  # the root, the newest
        state = {"agents": agents, "sessions": read(d.sessions), "events": read(d.events),
                 "invocations": read(d.invocations), "providers": read(d.providers),
                 "global": read(lambda: d.view(None)),
                 "scopes": {a: [read(functools.partial(f, a)) for f in
                                (d.view, d.prompt, d.tool_schemas, d.sdk_bindings)]
                            for a in watched}}
        return json.loads(dumps(state))

    def before(self) -> Any:
        if self._cached is None:
            self._cached = self.snapshot()
        return self._cached

    def changed(self, before: Any) -> str | None:
        """None when the state is still ``before``; else which parts changed."""
        after = self.snapshot()
        self._cached = after
        parts = sorted(k for k in after if after[k] != before.get(k))
        return ", ".join(parts) if parts else None

    def forget(self) -> None:
        self._cached = None


def _structured_error(status: int, data: bytes) -> str | None:
    """Why a 4xx/5xx body is not ``{code, message, details?}`` with a protocol code."""
    try:
        body = loads(data)
    except Malformed:
        return f"HTTP {status} with a body that is not JSON: {data[:120]!r}"
    if not isinstance(body, dict) or not isinstance(body.get("message"), str):
        return f"HTTP {status} without a structured error {{code, message}}: {data[:120]!r}"
    if body.get("code") not in {c.value for c in ErrorCode}:
        return f"HTTP {status} with error code {body.get('code')!r}, not a code of the protocol"
    return None


class ApiFuzzer:
    def __init__(self, target: HttpTarget, *, examples: int, seed: int, timeout: float,
                 budget: float | None, only: tuple[str, ...] = ()) -> None:
        self.target = target
        self.only = only
        self.url = target.base_url
        self.examples = examples
        self.seed = seed
        self.timeout = timeout
        self.deadline = None if budget is None else time.monotonic() + budget
        self.report = FuzzReport(self.url)
        self.http = http_client(self.url, timeout, base_url=self.url)

    # --- one request, judged -------------------------------------------------------------

    def _judge_refusal(self, label: str, check: str, observer: _Observer, before: Any,
                       status: int, data: bytes, reproduce: str) -> None:
        if status >= 500:
            self.report.add(FuzzFailure(label, "no-server-error",
                                        f"crashed with HTTP {status}: {data[:200]!r}", reproduce))
            return
        problem = _structured_error(status, data)
        if problem:
            self.report.add(FuzzFailure(label, "structured-error", problem, reproduce))
        changed = observer.changed(before)
        if changed:
            self.report.add(FuzzFailure(label, "refusal-changes-nothing",
                                        f"HTTP {status} refused the request but the "
                                        f"deployment's {changed} changed", reproduce))

    def probe(self, observer: _Observer, label: str, method: str, path: str, content: bytes,
              expect: set[int] | None = None, code: str | None = None) -> None:
        """Send raw bytes; expect a refusal (a 4xx, ``expect`` statuses, ``code``)."""
        before = observer.before()
        self.report.requests += 1
        reproduce = f"curl -X {method} {self.url}{path} --data-binary @- <<< {content[:80]!r}"
        try:
            answer = self.http.request(method, path, content=content,
                                       headers={"content-type": "application/json"})
        except httpx.HTTPError as exc:
            self.report.add(FuzzFailure(label, "answers", f"no answer: {exc}", reproduce))
            return
        status, data = answer.status_code, answer.content
        if status < 400:
            self.report.add(FuzzFailure(label, "malformed-refused", f"accepted with HTTP "
                                        f"{status}; expected a 4xx refusal", reproduce))
            observer.forget()
            return
        if expect and status not in expect and status < 500:
            self.report.add(FuzzFailure(label, "malformed-status", f"HTTP {status}, expected "
                                        f"{' or '.join(map(str, sorted(expect)))}", reproduce))
        if code and status < 500 and _structured_error(status, data) is None:
            got = loads(data)["code"]
            if got != code:
                self.report.add(FuzzFailure(label, "malformed-code",
                                            f"refused with {got}, expected {code}", reproduce))
        self._judge_refusal(label, "probe", observer, before, status, data, reproduce)

    # --- fixed probes ----------------------------------------------------------------------

    def probes(self, deployment: HttpDeployment, observer: _Observer, root: str) -> None:
        op = deployment._path
        bad = ErrorCode.INVALID_REQUEST.value
        start = '{"request": {"parent": %s, "provider": "spawn", "prompt": "x", "maxDepth": %s}}'
        raw = [
            ("raw NaN token", f"{op}/create-agent", b'{"headerDepth": NaN}'),
            ("raw Infinity token", f"{op}/set-host-depth", b'{"value": Infinity}'),
            ("raw -Infinity token", f"{op}/set-host-depth", b'{"value": -Infinity}'),
            ("raw NaN in a start", f"{op}/start",
             (start % (json.dumps(root), "NaN")).encode()),
            ("raw Infinity in a start", f"{op}/start",
             (start % (json.dumps(root), "Infinity")).encode()),
            ("truncated JSON", f"{op}/set-host-depth", b'{"value": 1'),
            ("bytes that are not UTF-8", f"{op}/unregister-tool", b'{"name": "\xff\xfe"}'),
            ("a body that is an array", f"{op}/set-host-depth", b"[1]"),
            ("an unknown argument", f"{op}/set-host-depth", b'{"value": 1, "bogus": 2}'),
            ("a missing argument", f"{op}/register-tool", b"{}"),
            ("a boolean given as a string", f"{op}/set-runtime-context",
             b'{"enabled": "yes"}'),
            ("a deployment config with a raw NaN", DEPLOYMENTS_PATH,
             b'{"gatewayUrl": "http://127.0.0.1:9/x", "hostDepth": NaN}'),
        ]
        for label, path, content in raw:
            self.probe(observer, f"POST {path} ({label})", "POST", path, content, {400}, bad)
        big = b'{"value": "' + b"x" * (MAX_BODY + 1) + b'"}'
        self.probe(observer, f"POST {op}/set-host-depth (a body over 8 MiB)", "POST",
                   f"{op}/set-host-depth", big, {400, 413}, bad)
        self.probe(observer, "POST (an unknown operation)", "POST", f"{op}/no-such-operation",
                   b"{}", None)
        self.probe(observer, "POST (an unknown deployment)", "POST",
                   f"{DEPLOYMENTS_PATH}/no-such-deployment/agents", b"{}", None)
        self.probe(observer, "DELETE (an unknown deployment)", "DELETE",
                   f"{DEPLOYMENTS_PATH}/no-such-deployment", b"", None)

    # --- generated requests ----------------------------------------------------------------

    def generated(self, deployment: HttpDeployment, observer: _Observer) -> None:
        try:
            import schemathesis
        except ImportError:
            raise TckError(ErrorCode.USAGE, "fuzz-api needs Schemathesis: pip install "
                           "'subagent-tck[api-fuzz]', or pass --probes-only") from None
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as seeded
        from hypothesis.errors import Unsatisfiable
        from schemathesis import GenerationMode

        from .engine.stable_draws import stable_draws
        from .transports.openapi import document

        schema = schemathesis.openapi.from_dict(document())
        operations = [cast(Any, r).ok() for r in schema.get_all_operations()]
        operations = [o for o in operations if o.method.upper() != "DELETE"
                      and (not self.only or o.path.rsplit("/", 1)[-1] in self.only)]
        self.report.operations = len(operations)
        for index, operation in enumerate(operations):
            modes: tuple[Any, ...] = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
            for mode in modes:
                if self.deadline is not None and time.monotonic() > self.deadline:
                    return
                strategy = operation.as_strategy(
                    mode, path_parameters={"id": deployment.id} if "{id}" in operation.path
                    else None)
                send = self._sender(observer, operation)
                test: Callable[[], None] = settings(
                    max_examples=self.examples, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), print_blob=False,
                    phases=[p for p in Phase if p is not Phase.explain])(
                    seeded(self.seed * 1000 + index * 2 + (mode is GenerationMode.NEGATIVE))(
                        given(strategy)(send)))  # type: ignore[no-untyped-call]
                try:
                    with stable_draws():
                        test()
                except Unsatisfiable:  # nothing to make malformed (GET /v1/info)
                    continue

    def _sender(self, observer: _Observer, operation: Any) -> Callable[[Any], None]:
        def send(case: Any) -> None:
            self._send(observer, operation, case)

        return send

    def _send(self, observer: _Observer, operation: Any, case: Any) -> None:
        """Send one generated case and judge the answer."""
        from schemathesis.checks import not_a_server_error
        from schemathesis.core.failures import FailureGroup
        from schemathesis.specs.openapi.checks import (
            content_type_conformance,
            negative_data_rejection,
            response_schema_conformance,
            status_code_conformance,
        )

        if self.deadline is not None and time.monotonic() > self.deadline:
            return
        before = observer.before()
        self.report.requests += 1
        label = operation.label
        try:
            response = case.call(base_url=self.url, timeout=self.timeout)
        except Exception as exc:
            self.report.add(FuzzFailure(label, "answers", f"no answer: {exc}",
                                        case.as_curl_command()))
            return
        checks = [not_a_server_error, status_code_conformance, content_type_conformance,
                  response_schema_conformance, negative_data_rejection]
        try:
            case.validate_response(response, checks=checks)
        except FailureGroup as group:
            for failure in group.exceptions:
                self.report.add(FuzzFailure(label, failure.title,
                                            " ".join(failure.message.split())[:300],
                                            case.as_curl_command()))
        status = response.status_code
        if status >= 400:
            self._judge_refusal(label, "generated", observer, before, status, response.content,
                                case.as_curl_command())
        elif label == f"POST {DEPLOYMENTS_PATH}" and status == 201:
            self._close_created(response.content)
        elif not operation.definition.raw.get("x-observes"):
            observer.forget()

    def _close_created(self, data: bytes) -> None:
        try:
            ident = loads(data).get("deployment")
            self.http.delete(f"{DEPLOYMENTS_PATH}/{ident}")
        except (Malformed, AttributeError, httpx.HTTPError):
            pass  # the answer was already judged by the schema checks

    def run(self, generated: bool = True) -> FuzzReport:
        began = time.monotonic()
        config = DeploymentConfig(tools=[ToolSpec(name="alpha", description="a tool"),
                                         ToolSpec(name="beta", description="b tool")])
        deployment = self.target.deploy(config, Gateway())
        try:
            observer = _Observer(deployment)
            self.probes(deployment, observer, observer.deployment.root().agent)
            if generated:
                self.generated(deployment, observer)
        finally:
            try:
                deployment.close()
            finally:
                self.http.close()
                self.report.seconds = time.monotonic() - began
        return self.report


def known_operations() -> list[str]:
    """The names ``--operation`` takes: the last path segment of every operation the driver
    API document offers requests for (DELETE, which closes a deployment, is never fuzzed)."""
    from .transports.openapi import document

    names = [path.rsplit("/", 1)[-1] for path, methods in document()["paths"].items()
             if set(methods) - {"delete"}]
    return list(dict.fromkeys(names))


def check_operations(wanted: tuple[str, ...], generated: bool = True) -> None:
    """A usage error for an ``--operation`` the document lacks (naming the closest and every
    known one), or any ``--operation`` with ``--probes-only`` (it would filter nothing): an
    unknown name must never fuzz nothing and pass."""
    if wanted and not generated:
        raise TckError(ErrorCode.USAGE, "--operation selects generated requests, and "
                       "--probes-only sends none: drop one of them")
    known = known_operations()
    for name in wanted:
        if name not in known:
            raise TckError(ErrorCode.USAGE, f"--operation {name!r}{hint(name, known)} is not an "
                           f"operation of the driver API; operations are {', '.join(known)}")


def fuzz_api(target: HttpTarget, *, examples: int = DEFAULT_EXAMPLES, seed: int = 0,
             timeout: float = 10.0, budget: float | None = None, generated: bool = True,
             operations: tuple[str, ...] = ()) -> FuzzReport:
    """Fuzz ``target``'s driver API; the report lists every distinct failure.

    ``operations`` limits the generated requests to those path segments (``view``,
    ``deployments``, ``info``...; an unknown one is a usage error); ``generated=False`` sends
    only the fixed probes.
    """
    check_operations(operations, generated)
    return ApiFuzzer(target, examples=examples, seed=seed, timeout=timeout, budget=budget,
                     only=operations).run(generated)


@contextmanager
def served(spec: str, timeout: float) -> Iterator[HttpTarget]:
    """The target a spec names, over HTTP: an in-process one is served on 127.0.0.1."""
    from .transports.http_server import create_app
    from .transports.httpd import ServerThread
    from .transports.targets import load_target

    target = load_target(spec)
    if isinstance(target, HttpTarget):
        try:
            yield target
        finally:
            target.close()
        return
    server = ServerThread(create_app(target)).start()
    client = HttpTarget(server.url, timeout=timeout)
    try:
        client.info()
        yield client
    finally:
        client.close()
        server.stop()
        target.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", required=True, metavar="TARGET",
                        help="http://..., cmd:..., or an in-process target (served on "
                             "127.0.0.1 for the run)")
    parser.add_argument("--max-examples", "--examples", dest="examples", type=int,
                        default=DEFAULT_EXAMPLES, metavar="N",
                        help=f"requests per operation and mode (default {DEFAULT_EXAMPLES})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S",
                        help="per request (default 10)")
    parser.add_argument("--budget", type=float, default=None, metavar="S",
                        help="stop generating after this many seconds")
    parser.add_argument("--operation", action="append", metavar="NAME",
                        help="fuzz only this operation (path segment, e.g. view; repeatable)")
    parser.add_argument("--probes-only", action="store_true",
                        help="send only the fixed malformed-request probes (no Schemathesis)")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace, out: Callable[[str], Any] | None = None) -> int:
    """``subagent-tck fuzz-api``: 0 no failure, 1 failures, 2 usage, 3 target unreachable."""
    if args.examples < 1:
        raise TckError(ErrorCode.USAGE, "--examples must be 1 or more")
    check_operations(tuple(args.operation or ()), not getattr(args, "probes_only", False))
    with served(args.target, args.timeout) as target:
        report = fuzz_api(target, examples=args.examples, seed=args.seed, timeout=args.timeout,
                          budget=args.budget, operations=tuple(args.operation or ()),
                          generated=not getattr(args, "probes_only", False))
    (out or sys.stdout.write)(json.dumps(report.to_json(), indent=2) + "\n"
                              if args.format == "json" else report.text())
    return 0 if report.ok else 1


__all__ = ["FuzzFailure", "FuzzReport", "fuzz_api", "run"]
