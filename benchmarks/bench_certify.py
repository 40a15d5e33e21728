"""Benchmark: full certification of the built-in reference (profile ci, in-process), and the
runner's overhead over calling the same checks directly.

    python benchmarks/bench_certify.py [--repeat N] [--edition E] [--seed N]

"Direct" runs the very plan the runner makes (same checks, providers, seed and examples) by
calling each check in the current thread, with no worker thread, timeout, events, evidence or
certificate. The difference is what the runner's safety nets and reporting cost.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from subagent_tck.conformance.engine.check import CheckContext
from subagent_tck.conformance.engine.check_run import run_check
from subagent_tck.conformance.engine.runner import (
    PROFILES,
    RunConfig,
    Suite,
    certify,
    plan,
    resolve_edition,
)
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import Edition


def timed(actions: list[Callable[[], object]], repeat: int) -> list[list[float]]:
    """Times of each action, interleaved so that drifting machine load hits both alike."""
    out: list[list[float]] = [[] for _ in actions]
    for _ in range(repeat):
        for times, action in zip(out, actions, strict=True):
            began = time.perf_counter()
            action()
            times.append(time.perf_counter() - began)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--edition", choices=[e.value for e in Edition], default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    suite = Suite.default()
    target = reference_target()
    info = target.info()
    edition = resolve_edition(info, args.edition)
    profile = PROFILES["ci"]
    planned = plan(suite, info, edition, None)
    config = RunConfig(target_spec="reference", edition=edition, seed=args.seed)

    verdicts: list[str] = []

    def full() -> None:
        verdicts.append(certify(target, config, suite=suite).verdict.value)

    def direct() -> None:
        for item in planned:
            run_check(CheckContext(
                target=target, check=item.check, edition=edition, provider=item.provider,
                providers=list(info.providers), seed=args.seed,
                max_examples=profile.max_examples,
            ))

    full()  # warm up imports and caches once
    certify_times, direct_times = timed([full, direct], args.repeat)
    best_full, best_direct = min(certify_times), min(direct_times)
    median_full, median_direct = statistics.median(certify_times), statistics.median(direct_times)
    overhead = best_full - best_direct
    print(f"reference, edition {edition.value}, profile ci, seed {args.seed}: "
          f"{len(planned)} check runs over {len(suite.rules)} rules; verdict {verdicts[-1]}")
    print(f"certify (runner): best {best_full:.3f} s, median {median_full:.3f} s")
    print(f"checks directly:  best {best_direct:.3f} s, median {median_direct:.3f} s")
    print(f"runner overhead:  {overhead:+.3f} s ({overhead / best_direct:+.1%}), "
          f"{overhead / max(len(planned), 1) * 1000:+.2f} ms per check run")


if __name__ == "__main__":
    main()
