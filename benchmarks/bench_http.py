"""Benchmark: certifying the reference over HTTP against certifying it in-process.

    python benchmarks/bench_http.py [--repeat N] [--round-trips N] [--blocks N] [--cpu N]
                                    [--profile ci|thorough]

1. The runner certifies the built-in reference in-process, then the same reference behind the
   HTTP driver API, served by a ``subagent-tck serve`` process started as a ``cmd:`` target
   (the way an adapter in another language runs), once each untimed (warming up), then
   ``--repeat`` times each, alternated; the medians are compared. Both verdicts must agree rule
   by rule; the ratio of wall times is the price of the transport. The HTTP run also counts its
   driver round trips and model gateway calls.
2. Round trips per second on one connection: a driver operation (``agents``: the cheapest
   observation) against a bare loopback echo served by the same server (:mod:`.httpd`, the one
   ``subagent-tck serve`` runs) in a process of its own and called with the driver's client
   (:mod:`.connections`) and the driver's headers, in the same run, so that what remains is the
   driver's own cost (routing, the JSON codec, validation, the runtime's call); httpx's full
   client against the same echo is shown for comparison. Short blocks of each alternate, and the
   driver's share is the median of neighbouring blocks' ratios: the machine's load drifts.

Both are measured three times: with the processes placed by the scheduler, the same with the
readers' busy poll off (``SUBAGENT_TCK_POLL_US=0``, :mod:`.busypoll`), then with every process
on one CPU (``--cpu N`` measures only the latter, on CPU N). On a virtual machine an idle virtual
CPU must be woken for each hand-over between the kit and the target, which can cost more than
the round trip itself; the busy poll keeps the CPU awake for the answer; on one CPU a hand-over
is a context switch. The last lines are the figures of the issue for each placement: HTTP time /
in-process time, and driver round trips per second / bare echo round trips per second, all
measured in this one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports import busypoll
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.connections import Connections
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.launcher import AdapterProcess, launch, split_command
from subagent_tck.conformance.transports.loopback import http_client

SERVE = f"{sys.executable} -m subagent_tck.conformance.transports.http_server --port 0"
ECHO = f"""{sys.executable} -c "
from subagent_tck.conformance.transports.httpd import Answer, HttpServer
from subagent_tck.conformance.transports.wire import VERSION_HEADER
class Echo:
    def handle(self, request):
        return Answer(200, request.body, headers=((VERSION_HEADER, '1.0'),))
    def refuse(self, status, message):
        return Answer(status, message.encode())
server = HttpServer(Echo())
print('SUBAGENT_TCK_READY', server.url, flush=True)
server.serve_forever()
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
        certify(reference_target(), config)  # untimed: imports and caches warm up for both
        certify(http, config)
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


def round_trips(count: int, blocks: int) -> tuple[float, float, float]:
    adapter = launch(SERVE, timeout=30)
    echo = AdapterProcess(split_command(ECHO))
    try:
        echo_url = echo.wait_ready(30)
        deployment = adapter.deploy(DeploymentConfig(), Gateway())
        headers = adapter._headers  # the driver's client stack, with the driver's headers
        kept = Connections(echo_url, connect_timeout=5, timeout=30, headers=headers)
        client = http_client(echo_url, 30)  # httpx itself, for comparison
        body = b"{}"  # what the driver sends for `agents`

        def bare() -> object:
            return kept.exchange("POST", "/echo", body, limit=1 << 20,
                                 deadline=time.monotonic() + 30)

        driver, echoes, full, ratios = [], [], [], []
        for block in range(blocks):  # short blocks, alternated: the load of the machine
            driver.append(rate(deployment.agents, count))  # drifts alike for both, and each
            echoes.append(rate(bare, count))  # ratio compares neighbouring blocks
            ratios.append(driver[-1] / echoes[-1])
            if block < 3:
                full.append(rate(lambda: client.post(f"{echo_url}/echo", content=body,
                                                     headers=headers), count))
        deployment.close()
        kept.close()
        client.close()
    finally:
        adapter.close()
        echo.stop()
    d, b, h, r = (statistics.median(x) for x in (driver, echoes, full, ratios))
    print(f"round trips on one connection ({blocks} alternated blocks of {count}, medians): "
          f"driver `agents` {d:.0f}/s, bare echo {b:.0f}/s with the same server, client and "
          f"headers, {h:.0f}/s with httpx's full client; the driver keeps {100 * r:.0f}% of the "
          f"bare rate ({1000 / d:.3f} ms vs {1000 / b:.3f} ms each)")
    return d, b, r


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed certifications per transport (after one untimed each)")
    parser.add_argument("--round-trips", type=int, default=200, help="per block")
    parser.add_argument("--blocks", type=int, default=15)
    parser.add_argument("--profile", choices=("ci", "thorough"), default="ci")
    parser.add_argument("--cpu", type=int, default=None, metavar="N",
                        help="measure only with every process on CPU N (default: measure "
                             "twice, placed by the scheduler, then all on the first CPU)")
    args = parser.parse_args(argv)
    # On a virtual machine, waking an idle virtual CPU for each hand-over between the kit and
    # the target can cost more than the round trip itself; on one CPU a hand-over is a context
    # switch. Both placements are measured, so that the transport's own price shows apart from
    # the machine's wake-up latency.
    first = min(os.sched_getaffinity(0))
    placements = ([("scheduler", None, True), ("scheduler, busy poll off", None, False),
                   (f"CPU {first} only", first, True)] if args.cpu is None
                  else [(f"CPU {args.cpu} only", args.cpu, True)])
    figures = []
    setting = os.environ.get(busypoll.ENVIRONMENT)
    for label, cpu, poll in placements:
        print(f"--- processes placed: {label}")
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})  # inherited by the processes launched below
        if poll:  # as the user has it (on, unless they turned it off)
            _restore(busypoll.ENVIRONMENT, setting)
        else:  # off here and in the processes launched below
            os.environ[busypoll.ENVIRONMENT] = "0"
        busypoll.window.cache_clear()
        driver, echo, kept = round_trips(args.round_trips, args.blocks)
        local_s, http_s = certify_both(args.profile, args.repeat)
        figures.append((label, local_s, http_s, driver, echo, kept))
    for label, local_s, http_s, driver, echo, kept in figures:
        print(f"summary ({label}): in-process {local_s:.2f} s, HTTP {http_s:.2f} s, ratio "
              f"{http_s / local_s:.1f}x (goal <= 3x); driver {driver:.0f} round trips/s, bare "
              f"echo {echo:.0f} round trips/s, ratio {kept:.2f} (goal >= 0.5)")


def _restore(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


if __name__ == "__main__":
    main()
