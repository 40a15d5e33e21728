"""HypoFuzz with two workers against one, both sharing one example database: steps per second
(docs/fuzz.md#hypofuzz). Goal: at least 1.7 times the steps per second with 2 workers.

Run from the repository root: ``python benchmarks/bench_hypofuzz.py [--seconds 60]
[--target reference] [--rounds 2]``. Each round runs one worker, then two, then two, then one
(the machine's load drifts alike for both), each campaign with a fresh database directory that
its workers share; a campaign's rate is its workers' own rates summed (steps over each worker's
time since it loaded its target, so start-up is left out). The ratio is of the medians. The
machine is often shared: the load average is printed with every figure, and with fewer idle
cores than workers the second worker has no core of its own to run on.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subagent_tck.fuzz.hypofuzz_run import run_hypofuzz  # noqa: E402

GOAL_RATIO = 1.7


def load() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def rate(target: str, workers: int, seconds: float) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-hypofuzz-") as database:
        result = run_hypofuzz(target, workers=workers, budget_seconds=seconds,
                              database=database, output_dir=None)
    if result.error is not None or result.finding is not None:
        raise SystemExit(f"the campaign with {workers} worker(s) did not run cleanly: "
                         f"{result.report(target)}")
    print(f"  {workers} worker(s): {result.steps} steps, {result.examples} deployments, "
          f"{result.steps_per_second:.0f} steps/s; load {load()}", flush=True)
    return result.steps_per_second


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="per campaign")
    parser.add_argument("--target", default="reference")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    print(f"HypoFuzz on {args.target}, {os.cpu_count()} cores; load average before: {load()}")
    one: list[float] = []
    two: list[float] = []
    for _ in range(args.rounds):
        one.append(rate(args.target, 1, args.seconds))
        two.append(rate(args.target, 2, args.seconds))
        two.append(rate(args.target, 2, args.seconds))
        one.append(rate(args.target, 1, args.seconds))
    ratio = statistics.median(two) / statistics.median(one)
    print(f"HypoFuzz, 2 workers against 1 sharing one database: {statistics.median(two):.0f} "
          f"against {statistics.median(one):.0f} steps/s, ratio {ratio:.2f} (goal "
          f"{GOAL_RATIO}); load {load()}")
    return 0 if ratio >= GOAL_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
