"""Fuzzer speed and power: steps per second against the reference, time to find each subtle bug.

Goals: the state machine runs at least 2,000 steps/s against the in-process reference, and
fuzzing finds every ``SUBTLE`` zoo entry and every entry of :data:`CAMPAIGN_ENTRIES`
(``examples/providers``) in under 10 s median over 5 seeds, naming the rule the entry breaks.

Run from the repository root: ``python benchmarks/bench_fuzz.py [--seconds 10]
[--http-seconds 10] [--seeds 5] [--budget 60] [ENTRY ...]``. Steps per second are also measured
against the reference behind the HTTP driver API (no goal: the figure shows the transport's
price). For each seed it runs a campaign without an example database (so
nothing found earlier helps) and reports the time to the first divergence (before shrinking),
the time until the shrunk counterexample is ready, the steps run, and the rule named. The
machine is often shared: the load average is printed with the figures (CPU seconds too), and a
time reported is wall-clock time.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subagent_tck.conformance.transports.builtin import reference_target  # noqa: E402
from subagent_tck.conformance.transports.targets import load_target  # noqa: E402
from subagent_tck.fuzz.campaign import run_campaign  # noqa: E402

GOAL_STEPS_PER_SECOND = 2_000
GOAL_MEDIAN_SECONDS = 10.0


def load() -> str:
    try:
        return ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


#: Entries only the campaign's operations reach (an abort mid-turn, several requests in one
#: turn, a runtime depth below the header, a request filter never applied, run_code executed).
CAMPAIGN_ENTRIES = (
    "abort_not_bridged", "notice_on_every_request", "tools_frozen_per_turn",
    "runtime_overrides_header", "request_filter_dropped", "run_code_reaches_hidden_global",
    "run_code_runs_global_under_local", "run_code_bindings_frozen",
)


def subtle_entries() -> list[str]:
    """The SUBTLE zoo entries and :data:`CAMPAIGN_ENTRIES`."""
    zoo = ROOT / "examples" / "providers"
    return sorted({*CAMPAIGN_ENTRIES, *(
        p.stem for p in zoo.glob("*.py")
        if not p.stem.startswith("_") and "\nSUBTLE = True" in p.read_text(encoding="utf-8")
    )})


def steps_per_second(seconds: float) -> tuple[float, float, int]:
    """(wall steps/s, CPU steps/s, steps) of a campaign against the reference."""
    target = reference_target()
    cpu = time.process_time()
    result = run_campaign(target, budget_seconds=seconds, max_examples=10**9, seed=1,
                          database_dir=None, output_dir=None)
    cpu = time.process_time() - cpu
    assert result.finding is None, result.report()
    return result.steps_per_second, result.steps / cpu, result.steps


def http_steps_per_second(seconds: float) -> tuple[float, int]:
    """(wall steps/s, steps) of a campaign against the reference served over the HTTP driver
    API (``subagent-tck serve`` started as a ``cmd:`` target, as an adapter would run)."""
    target = load_target(f"cmd:{sys.executable} -m subagent_tck.conformance.transports.http_server "
                         "--port 0")
    try:
        result = run_campaign(target, budget_seconds=seconds, max_examples=10**9, seed=1,
                              database_dir=None, output_dir=None)
    finally:
        target.close()
    assert result.finding is None, result.report()
    return result.steps_per_second, result.steps


def time_to_find(name: str, seeds: int, budget: float) -> list[tuple[float | None, float, str]]:
    """Per seed: (seconds to the first divergence, seconds to the shrunk report, rule)."""
    module = importlib.import_module(f"examples.providers.{name}")
    out: list[tuple[float | None, float, str]] = []
    for seed in range(seeds):
        target = module.provider()
        result = run_campaign(target, budget_seconds=budget, max_examples=10**9, seed=seed,
                              database_dir=None, output_dir=None)
        first = result.first_divergence[1] if result.first_divergence else None
        rule = result.finding.rule if result.finding else "NOT FOUND"
        out.append((first, result.seconds, rule or "crash"))
        target.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="steps/s measuring time")
    parser.add_argument("--http-seconds", type=float, default=10.0,
                        help="steps/s measuring time over HTTP (0: skip)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=60.0, help="per campaign")
    parser.add_argument("entries", nargs="*", help="subtle zoo entries (default: all)")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    ok = True
    print(f"load average before: {load()}")
    wall, cpu, steps = steps_per_second(args.seconds)
    ok &= wall >= GOAL_STEPS_PER_SECOND
    print(f"reference: {steps} steps in {args.seconds:.0f}s: {wall:.0f} steps/s wall, "
          f"{cpu:.0f} steps per CPU second (goal {GOAL_STEPS_PER_SECOND}); load {load()}")
    if args.http_seconds > 0:
        http_wall, http_steps = http_steps_per_second(args.http_seconds)
        print(f"reference over HTTP: {http_steps} steps in {args.http_seconds:.0f}s: "
              f"{http_wall:.0f} steps/s wall ({http_wall / wall:.2f} of in-process; no goal); "
              f"load {load()}")
    for name in args.entries or subtle_entries():
        breaks = importlib.import_module(f"examples.providers.{name}").BREAKS
        runs = time_to_find(name, args.seeds, args.budget)
        firsts = [f if f is not None else float("inf") for f, _, _ in runs]
        totals = [t for _, t, _ in runs]
        rules = [r for _, _, r in runs]
        median = statistics.median(firsts)
        good = median < GOAL_MEDIAN_SECONDS and all(r == breaks for r in rules)
        ok &= good
        print(f"{name} ({breaks}): first divergence median {median:.1f}s "
              f"[{', '.join(f'{f:.1f}' for f in firsts)}], shrunk report median "
              f"{statistics.median(totals):.1f}s, rules {rules}, "
              f"{'ok' if good else 'MISSED GOAL'}; load {load()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
