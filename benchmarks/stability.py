"""Stability: the default ``certify`` of unchanged targets at many random seeds.

A random seed must never turn an unchanged target red. This script certifies each target at
``--seeds`` seeds drawn from ``--draw`` (printed, so a run can be repeated), with the target's
baseline where it has one, and prints one line per run and a table per target: how many runs
were green, and for each red one the seed, the exit code, the failing rules and the first line
of each failure, and the replay command. It asserts nothing: a red run is a finding to explain
(a divergence only that draw reaches, then kept as an explicit example; or nondeterminism in the
kit or the target, then fixed).

    python benchmarks/stability.py                          # reference and JavaScript, 20 seeds
    python benchmarks/stability.py --targets dsh --seeds 6  # DSH in both editions
    python benchmarks/stability.py --targets reference --seed-list 0,7,4206720533

Each run is ``subagent-tck certify`` in a fresh process (as a user runs it), with the JSON report
read back for the verdict. Targets: ``reference`` (in-process), ``javascript``
(``implementations/javascript/server.mjs``), ``dsh`` (``adapters/dsh/server.mjs`` in the
request-controls and preset-composition editions, each with its baseline). Needs ``npm ci`` in
``implementations/javascript`` and ``adapters/dsh`` for those targets.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Run:
    """One target as ``certify`` is given it."""

    name: str
    args: tuple[str, ...]


TARGETS: dict[str, tuple[Run, ...]] = {
    "reference": (Run("reference", ("--target", "reference")),),
    "javascript": (Run("javascript", (
        "--target", "cmd:node implementations/javascript/server.mjs")),),
    "dsh": (
        Run("dsh request-controls", (
            "--target", "cmd:node adapters/dsh/server.mjs", "--edition", "request-controls",
            "--baseline", "adapters/dsh/baseline.toml")),
        Run("dsh preset-composition", (
            "--target", "cmd:node adapters/dsh/server.mjs", "--edition", "preset-composition",
            "--baseline", "adapters/dsh/baseline.presets.toml")),
    ),
}


@dataclass
class Outcome:
    seed: int
    code: int
    seconds: float
    verdict: str
    failing: list[tuple[str, str]] = field(default_factory=list)  # (rule, first message line)


def certify(run: Run, seed: int, scratch: Path) -> Outcome:
    report = scratch / f"{run.name.replace(' ', '-')}-{seed}.json"
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify", *run.args,
               "--seed", str(seed), "--report", f"json={report}",
               "--fuzz-output-dir", str(scratch / "fuzz")]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return Outcome(seed, done.returncode, seconds, "no report", [("-", tail[0])])
    failing = [
        (rule["id"], (rule["failures"][0]["message"] if rule.get("failures") else "").split(
            "\n")[0][:160])
        for rule in data.get("rules", [])
        if rule.get("outcome") in ("fail", "error", "unexpected-pass")
    ]
    return Outcome(seed, done.returncode, seconds, str(data.get("verdict")), failing)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--targets", default="reference,javascript",
                        help=f"comma-separated, of {', '.join(TARGETS)}")
    parser.add_argument("--seeds", type=int, default=20, help="random seeds per target")
    parser.add_argument("--draw", type=int, default=None,
                        help="seed of the draw of seeds (default: fresh, printed)")
    parser.add_argument("--seed-list", default="", help="these seeds instead of a draw")
    args = parser.parse_args(argv)
    unknown = [t for t in args.targets.split(",") if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}: use {', '.join(TARGETS)}")
    if args.seed_list:
        seeds = [int(s) for s in args.seed_list.split(",")]
    else:
        draw = random.SystemRandom().randrange(2**32) if args.draw is None else args.draw
        print(f"seeds drawn with --draw {draw}")
        rng = random.Random(draw)
        seeds = [rng.randrange(2**32) for _ in range(args.seeds)]
    print(f"seeds: {', '.join(map(str, seeds))}", flush=True)
    summary: list[str] = []
    with tempfile.TemporaryDirectory(prefix="tck-stability-") as tmp:
        for target in args.targets.split(","):
            for run in TARGETS[target]:
                results = []
                for seed in seeds:
                    outcome = certify(run, seed, Path(tmp))
                    results.append(outcome)
                    rules = ", ".join(r for r, _ in outcome.failing) or "-"
                    print(f"{run.name:<24} seed {seed:>10}  exit {outcome.code}  "
                          f"{outcome.verdict:<10} {outcome.seconds:6.1f} s  red rules: {rules}",
                          flush=True)
                red = [o for o in results if o.code != 0]
                mean = sum(o.seconds for o in results) / len(results)
                summary.append(f"{run.name}: {len(results) - len(red)} of {len(results)} green, "
                               f"mean {mean:.1f} s per certify")
                for o in red:
                    for rule, line in o.failing:
                        summary.append(f"  seed {o.seed} exit {o.code} {rule}: {line}")
                    summary.append(
                        f"  replay: subagent-tck certify {' '.join(run.args)} --seed {o.seed}")
    print("\n" + "\n".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
