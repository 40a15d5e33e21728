"""Fuzzing over HTTP, in one run: steps per second against the in-process reference, the
JavaScript implementation and DSH, with a step's reads batched (docs/driver-api.md#batch) and
one call at a time.

Run from the repository root: ``python benchmarks/bench_fuzz_http.py [--seconds 20]
[--cpu N] [--no-dsh]``. Goals: the JavaScript implementation at least 1,000 steps/s on one core;
DSH at least 500 steps/s and 50 deployments (``adapters/dsh``: ``cd adapters/dsh && npm ci``).

Every process is pinned to one CPU (``--cpu``, default the first this process may use), so
"on one core" is what it says: the kit and the adapter take turns on it. The machine is often
shared, so beside the wall-clock rate each line gives the rate per CPU second of the kit and the
adapter together (what one core of their own would give) and the load average. A target whose
campaign finds a divergence (DSH has known ones: docs/dsh.md) is fuzzed at further seeds until
the time is spent; its rate counts the steps up to each first divergence, before shrinking.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subagent_tck.conformance.transports.builtin import reference_target  # noqa: E402
from subagent_tck.conformance.transports.targets import load_target  # noqa: E402
from subagent_tck.fuzz.campaign import run_campaign  # noqa: E402
from subagent_tck.spec import Edition  # noqa: E402

GOAL_JAVASCRIPT = 1_000
GOAL_DSH = 500
GOAL_DSH_DEPLOYMENTS = 50
JAVASCRIPT = "cmd:node implementations/javascript/server.mjs"
DSH = "cmd:node adapters/dsh/server.mjs"


def load() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


@dataclass
class Rate:
    steps: int
    deployments: int
    seconds: float
    cpu: float  # the kit's and the adapter's CPU seconds

    @property
    def wall(self) -> float:
        return self.steps / max(self.seconds, 1e-9)

    @property
    def per_cpu(self) -> float:
        return self.steps / max(self.cpu, 1e-9)


def _cpu(process: psutil.Process | None) -> float:
    if process is None:
        return 0.0
    total = 0.0
    for p in [process, *process.children(recursive=True)]:
        try:
            times = p.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            continue
    return total


def _at_divergence(process: psutil.Process | None) -> tuple[list[float], Callable[[str], None]]:
    """A campaign's progress callback noting the CPU spent up to its first divergence, before
    it is shrunk: what the steps counted cost (Hypothesis's replay of the diverging example is
    in it: an overestimate)."""
    found: list[float] = []

    def progress(line: str) -> None:
        if line.startswith("fuzz: divergence after") and not found:
            found.append(time.process_time() + _cpu(process))

    return found, progress


def measure(spec: str | None, seconds: float, *, batches: bool,
            editions: tuple[Edition, ...] = ()) -> Rate:
    """Campaigns at seeds 1, 2, ... until ``seconds`` of fuzzing are spent (a campaign stops at
    its first divergence; the steps up to it count)."""
    target = reference_target() if spec is None else load_target(spec)
    if not batches:
        target.batches = False  # type: ignore[union-attr]
    adapter = getattr(target, "adapter", None)
    process = psutil.Process(adapter.process.pid) if adapter is not None else None
    rate = Rate(0, 0, 0.0, 0.0)
    seed = 1
    try:
        run_campaign(target, seed=0, max_examples=2, database_dir=None, output_dir=None,
                     editions=editions)  # warm up: imports, the adapter's first deployments
        while rate.seconds < seconds:
            cpu = time.process_time() + _cpu(process)
            found, progress = _at_divergence(process)
            result = run_campaign(target, seed=seed, budget_seconds=seconds - rate.seconds,
                                  max_examples=10**9, database_dir=None, output_dir=None,
                                  editions=editions, progress=progress)
            if result.first_divergence is not None:
                steps, spent = result.first_divergence
            else:
                steps, spent = result.steps, result.seconds
            rate.steps += steps
            rate.seconds += spent
            rate.deployments += result.examples
            rate.cpu += (found[0] if found else time.process_time() + _cpu(process)) - cpu
            seed += 1
    finally:
        target.close()
    return rate


def line(name: str, rate: Rate, reference: Rate | None, goal: int | None) -> str:
    ratio = f", {rate.per_cpu / reference.per_cpu:.2f} of in-process" if reference else ""
    aim = f" (goal {goal})" if goal else ""
    return (f"{name}: {rate.steps} steps, {rate.deployments} deployments in {rate.seconds:.1f} s:"
            f" {rate.wall:.0f} steps/s wall, {rate.per_cpu:.0f} steps per CPU second{aim}"
            f"{ratio}; load {load()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="fuzzing time per target")
    parser.add_argument("--cpu", type=int, default=None, help="the one CPU to run on")
    parser.add_argument("--no-dsh", action="store_true", help="leave DSH out")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    cpu = min(os.sched_getaffinity(0)) if args.cpu is None else args.cpu
    os.sched_setaffinity(0, {cpu})  # the adapters launched below inherit it
    print(f"every process on CPU {cpu}; load average before: {load()}")
    reference = measure(None, args.seconds, batches=False)
    print(line("reference in-process", reference, None, None))
    ok = True
    for name, batches in (("JavaScript over HTTP, batched", True),
                          ("JavaScript over HTTP, one call at a time", False)):
        rate = measure(JAVASCRIPT, args.seconds, batches=batches)
        print(line(name, rate, reference, GOAL_JAVASCRIPT if batches else None))
        ok &= not batches or rate.per_cpu >= GOAL_JAVASCRIPT
    if not args.no_dsh:
        for name, batches in (("DSH over HTTP, batched", True),
                              ("DSH over HTTP, one call at a time", False)):
            rate = measure(DSH, args.seconds, batches=batches,
                           editions=(Edition.REQUEST_CONTROLS,))
            print(line(name, rate, reference, GOAL_DSH if batches else None))
            ok &= not batches or (rate.per_cpu >= GOAL_DSH
                                  and rate.deployments >= GOAL_DSH_DEPLOYMENTS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
