"""Benchmark: certifying the reference over HTTP against certifying it in-process.

    python benchmarks/bench_http.py [--repeat N] [--round-trips N] [--profile ci|thorough]

1. The runner certifies the built-in reference in-process, then the same reference behind the
   HTTP driver API, served by a ``subagent-tck serve`` process started as a ``cmd:`` target
   (the way an adapter in another language runs). Both verdicts must agree rule by rule; the
   ratio of wall times is the price of the transport. The HTTP run also counts its driver round
   trips and model gateway calls.
2. Round trips per second on one connection: a driver operation (``agents``: the cheapest
   observation) against a bare loopback echo served by the same stack (uvicorn, Starlette) in a
   process of its own and called with the driver's client (:mod:`.connections`, kept
   ``http.client`` connections; httpcore and httpx's full client are shown too), in the same run,
   so the driver's own cost is visible.

The last lines are the figures of the issue: HTTP time / in-process time, and driver round trips
per second / bare echo round trips per second, all measured in this one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import httpcore

from subagent_tck.conformance.builtin import reference_target
from subagent_tck.conformance.connections import Connections
from subagent_tck.conformance.gateway import Gateway
from subagent_tck.conformance.http_target import HttpTarget
from subagent_tck.conformance.launcher import AdapterProcess, launch, split_command
from subagent_tck.conformance.loopback import NO_DELAY, http_client
from subagent_tck.conformance.protocol import DeploymentConfig
from subagent_tck.conformance.runner import RunConfig, certify

SERVE = f"{sys.executable} -m subagent_tck.conformance.http_server --port 0"
ECHO = f"""{sys.executable} -c "
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
import uvicorn
from subagent_tck.conformance.loopback import bind, uvicorn_config
async def echo(request):
    return Response(await request.body(), media_type='application/json')
sock = bind()
print('SUBAGENT_TCK_READY http://127.0.0.1:%d' % sock.getsockname()[1], flush=True)
uvicorn.Server(uvicorn_config(Starlette(routes=[Route('/echo', echo, methods=['POST'])]))
               ).run(sockets=[sock])
"
"""


class CountingTarget(HttpTarget):
    """Counts the driver requests it sends."""

    requests = 0

    def request(self, *args: Any, **kwargs: Any) -> Any:
        type(self).requests += 1
        return super().request(*args, **kwargs)


def outcomes(certificate: Any) -> dict[str, str]:
    """Each rule's outcome per provider: what must agree between the transports."""
    return {f"{rule.id}/{p.provider}": p.outcome.value
            for rule in certificate.rules for p in rule.providers}


def certify_both(profile: str, repeat: int) -> tuple[float, float]:
    config = RunConfig(profile=profile, timeout=120, deadline=3600)
    adapter = launch(SERVE, timeout=60)
    http = CountingTarget(adapter.base_url, timeout=60)
    local_times, http_times = [], []
    gateway_calls = 0
    try:
        for _ in range(repeat):  # interleaved: drifting load hits both alike
            began = time.perf_counter()
            local = certify(reference_target(), config)
            local_times.append(time.perf_counter() - began)
            CountingTarget.requests = 0
            calls = http._gateway.calls if http._gateway else 0
            began = time.perf_counter()
            remote = certify(http, config)
            http_times.append(time.perf_counter() - began)
            gateway_calls = (http._gateway.calls if http._gateway else 0) - calls
            if outcomes(local) != outcomes(remote) or local.verdict != remote.verdict:
                raise SystemExit("the verdicts differ between in-process and HTTP")
    finally:
        http.close()
        adapter.close()
    local_s, http_s = statistics.median(local_times), statistics.median(http_times)
    print(f"certify --profile {profile}: in-process {local_s:.2f} s, over HTTP {http_s:.2f} s "
          f"(ratio {http_s / local_s:.1f}x); verdicts identical ({local.verdict.value}, "
          f"{len(outcomes(local))} rule/provider outcomes)")
    print(f"  the HTTP run: {CountingTarget.requests} driver requests and {gateway_calls} model "
          f"gateway calls, {(CountingTarget.requests + gateway_calls) / http_s:.0f} round trips "
          "per second of the run")
    return local_s, http_s


def rate(action: Callable[[], object], count: int) -> float:
    action()  # warm the connection
    began = time.perf_counter()
    for _ in range(count):
        action()
    return count / (time.perf_counter() - began)


def round_trips(count: int, repeat: int) -> tuple[float, float]:
    adapter = launch(SERVE, timeout=30)
    echo = AdapterProcess(split_command(ECHO))
    try:
        echo_url = echo.wait_ready(30)
        deployment = adapter.deploy(DeploymentConfig(), Gateway())
        kept = Connections(echo_url, connect_timeout=5, timeout=30)  # the driver's client stack
        pool = httpcore.ConnectionPool(socket_options=NO_DELAY)  # for comparison
        client = http_client(echo_url, 30)  # httpx itself, for comparison
        body = b'{"agent": null}'
        headers = [(b"host", echo_url.split("//")[1].encode()),
                   (b"content-type", b"application/json")]

        def bare() -> object:
            return kept.exchange("POST", "/echo", {"Content-Type": "application/json"}, body,
                                 limit=1 << 20, deadline=time.monotonic() + 30)

        def core() -> object:
            return pool.request("POST", f"{echo_url}/echo", headers=headers, content=body)

        driver, echoes, cores, full = [], [], [], []
        for _ in range(repeat):  # interleaved: drifting load hits all alike
            driver.append(rate(deployment.agents, count))
            echoes.append(rate(bare, count))
            cores.append(rate(core, count))
            full.append(rate(lambda: client.post(f"{echo_url}/echo", content=body), count))
        deployment.close()
        kept.close()
        pool.close()
        client.close()
    finally:
        adapter.close()
        echo.stop()
    d, b, c, h = (statistics.median(x) for x in (driver, echoes, cores, full))
    print(f"round trips on one connection: driver `agents` {d:.0f}/s, bare echo {b:.0f}/s with "
          f"the same client (kept http.client), {c:.0f}/s with httpcore, {h:.0f}/s with httpx's "
          f"full client; the driver keeps {100 * d / b:.0f}% of the bare rate "
          f"({1000 / d:.2f} ms vs {1000 / b:.2f} ms each)")
    return d, b


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="certifications per transport")
    parser.add_argument("--round-trips", type=int, default=500)
    parser.add_argument("--profile", choices=("ci", "thorough"), default="ci")
    args = parser.parse_args(argv)
    driver, echo = round_trips(args.round_trips, 3)
    local_s, http_s = certify_both(args.profile, args.repeat)
    print(f"summary: in-process {local_s:.2f} s, HTTP {http_s:.2f} s, ratio "
          f"{http_s / local_s:.1f}x (goal <= 3x); driver {driver:.0f} round trips/s, bare echo "
          f"{echo:.0f} round trips/s, ratio {driver / echo:.2f} (goal >= 0.5)")


if __name__ == "__main__":
    main()
