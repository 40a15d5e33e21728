"""Benchmark: ``certify --jobs 2`` against ``--jobs 1`` (docs/certify.md#jobs), each a default
``subagent-tck certify`` in a fresh process as a user runs it, at one seed, interleaved so that
drifting machine load hits both alike; prints the wall and CPU seconds of each run, their
medians, the ratio of the medians, and the load average (``uptime``) before and after.

    python benchmarks/bench_jobs.py                              # reference, javascript, dsh
    python benchmarks/bench_jobs.py --targets reference --repeat 3 --seed 7

Targets: ``reference`` (in-process), ``javascript`` (``implementations/javascript/server.mjs``),
``dsh`` (``adapters/dsh/server.mjs`` in the request-controls edition with its baseline; needs
``npm ci`` in ``adapters/dsh``, which brings Node 22), ``claude-code`` and ``opencode`` (their
adapters in the preset-composition edition with their baselines, as their docs certify them;
``--rule ID`` narrows a run, which is many minutes whole). The rule outcomes of both runs of a seed
are compared too: a ratio between two runs that judged differently would mean nothing, so a
difference is printed as such. (The whole certificates are the same only when no campaign shard
was cut by its time cap, which a slow target over HTTP may be: their notes then count other
deployments.) CPU seconds are those of the run and of the
processes its tree reaped (workers, adapters), from ``resource.getrusage``: an adapter's own
child that outlives its parent (DSH's Node 22 under a Node 20 launcher) is reaped elsewhere and
not counted, so compare CPU figures of one target only. The issue's goals: at least 1.7x on DSH
and Claude Code; at ``--jobs 2`` the reference within 10 s, DSH and Claude Code within 30 s,
opencode within 60 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from subagent_tck.conformance.core.certificate import Certificate

ROOT = Path(__file__).resolve().parents[1]

TARGETS: dict[str, tuple[str, ...]] = {
    "reference": ("--target", "reference"),
    "javascript": ("--target", "cmd:node implementations/javascript/server.mjs"),
    "dsh": ("--target", "cmd:node adapters/dsh/server.mjs", "--edition", "request-controls",
            "--baseline", "adapters/dsh/baseline.toml"),
    # as docs/claude-code.md and docs/opencode.md certify them (a whole run is many minutes:
    # every agent turn is a process of the runtime's; --rule narrows it)
    "claude-code": ("--target", "cmd:python adapters/claude-code/server.py", "--edition",
                    "preset-composition", "--timeout", "600", "--baseline",
                    "adapters/claude-code/baseline.toml"),
    "opencode": ("--target", "cmd:python adapters/opencode/server.py", "--edition",
                 "preset-composition", "--timeout", "600", "--baseline",
                 "adapters/opencode/baseline.toml"),
}


@dataclass(frozen=True)
class Run:
    jobs: int
    wall: float
    cpu: float
    code: int
    outcomes: str  # every rule's outcome per provider ("" without a certificate)
    verdict: str


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def certify(args: tuple[str, ...], jobs: int, seed: int, scratch: Path) -> Run:
    report = scratch / f"cert-{jobs}.json"
    command = [sys.executable, "-m", "subagent_tck", "certify", *args, "--seed", str(seed),
               "--jobs", str(jobs), "--report", f"json={report}",
               "--fuzz-output-dir", str(scratch / "fuzz")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False,
                          env={**os.environ, "CI": "true"})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        cert = Certificate.model_validate_json(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return Run(jobs, wall, cpu, done.returncode, "", f"no certificate: {tail[0]}")
    outcomes = "; ".join(f"{r.id} {p.provider} {p.outcome.value}" for r in cert.rules
                         for p in r.providers)
    return Run(jobs, wall, cpu, done.returncode, outcomes, cert.verdict.value)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--targets", default="reference,javascript,dsh",
                        help="comma-separated: " + ", ".join(TARGETS))
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs per target")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="against --jobs 1")
    parser.add_argument("--rule", action="append", default=[], metavar="ID",
                        help="certify only these rules (repeat it; default: every rule)")
    args = parser.parse_args(argv)
    narrowed = tuple(a for rule in args.rule for a in ("--rule", rule))
    names = [n.strip() for n in args.targets.split(",") if n.strip()]
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}: use {', '.join(TARGETS)}")
    print(f"certify --jobs {args.jobs} against --jobs 1, seed {args.seed}, {args.repeat} "
          f"pair(s) per target, {os.cpu_count()} cores, "
          f"{'rules ' + ', '.join(args.rule) if args.rule else 'every rule'}; load {load()}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-jobs-") as scratch:
        for name in names:
            runs: dict[int, list[Run]] = {1: [], args.jobs: []}
            for _ in range(args.repeat):
                for jobs in (1, args.jobs):
                    run = certify((*TARGETS[name], *narrowed), jobs, args.seed,
                                  Path(scratch))
                    runs[jobs].append(run)
                    print(f"  {name:<10} --jobs {jobs}: {run.wall:7.1f} s wall, {run.cpu:7.1f} s "
                          f"CPU, exit {run.code}, {run.verdict}; load {load()}", flush=True)
            serial = statistics.median(r.wall for r in runs[1])
            parallel = statistics.median(r.wall for r in runs[args.jobs])
            same = {r.outcomes for r in [*runs[1], *runs[args.jobs]]}
            print(f"{name}: median {serial:.1f} s at --jobs 1, {parallel:.1f} s at --jobs "
                  f"{args.jobs}: {serial / parallel:.2f}x; rule outcomes "
                  + ("the same" if len(same) == 1 and "" not in same else "DIFFER"), flush=True)
    print(f"load {load()}")


if __name__ == "__main__":
    main()
