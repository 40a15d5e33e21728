"""Benchmark: how many mutants of reference/ the kit's own ``certify`` kills (cosmic-ray).

    nice -n 15 python benchmarks/mutation.py [--sample N] [--seed S] [--profile ci|thorough|both]
        [--thorough-on survivors|all] [--module GLOB ...] [--skip-oracle-calls]
        [--certify-seed N] [--fuzz-budget S] [--json FILE] [--list] [--mutant ID ...]

cosmic-ray enumerates every mutant its core operators make in the files of reference/ (the very
files the editable install maps to ``subagent_tck.reference``) and applies each one in place; the
test of a mutant is one ``subagent-tck certify --target reference`` in a fresh interpreter. A
mutant is KILLED when certify exits non-zero, prints no ``verdict: CERTIFIED`` line or its JSON
report fails a rule (a SHOULD rule too: ``certify_probe.survived``); a certify that overruns
the timeout is killed too and counted apart as a timeout. Everything else SURVIVED.

Before any figure the script proves its set-up: the unmutated reference is CERTIFIED, cosmic-ray's
no-op mutant survives and a module that raises on import is killed. Every file it touches is
restored afterwards (also on Ctrl-C or SIGTERM) and compared with its saved bytes. See
benchmarks/README.md for what the figures mean.

The mutants and their sample are benchmarks/mutation_mutants.py; how a mutant is written over
reference/ and the tree restored, benchmarks/mutation_tree.py; this script tests each mutant with
one certify and prints the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from certify_probe import failing_rules, survived
from mutation_mutants import (
    REFERENCE,
    Mutant,
    SetupError,
    draw,
    enumerate_mutants,
    oracle_sites,
    reference_modules,
)
from mutation_tree import Snapshot, applied, drop_bytecode, exclusive, require_clean_tree

#: The operator that changes nothing: never sampled, only used to prove a survivor survives.
NO_OP = "core/NoOp"
#: Rule ids in certify's text output (docs/rules.md), to say which rules a mutant broke.
RULE_ID = re.compile(r"\b[A-Z]{2,4}-\d{2}\b")
CERTIFY = "from subagent_tck.conformance.cli import main; raise SystemExit(main())"


@dataclass
class Outcome:
    mutant: str
    profile: str
    status: str  # killed | survived | timeout
    seconds: float
    cpu_seconds: float
    rules: list[str] = field(default_factory=list)
    diff: str = ""


# -- the test: one certify -----------------------------------------------------------------------

@dataclass
class Limits:
    """How long a mutant's certify may take. CPU time is the real limit (RLIMIT_CPU): it does not
    grow when the machine is loaded, so a loaded machine cannot turn a slow run into a kill; the
    wall clock only catches a run that waits forever without computing."""

    cpu: float
    wall: float


def certify(profile: str, seed: int, limits: Limits, fuzz_budget: float | None,
            scratch: Path) -> tuple[str, float, float, list[str], str]:
    """(killed|survived|timeout, wall s, CPU s, failed rule ids, output) of one certify run."""
    report = scratch / "report.json"
    report.unlink(missing_ok=True)
    argv = [sys.executable, "-c", CERTIFY, "certify", "--target", "reference",
            "--seed", str(seed), "--profile", profile, "--report", f"json={report}"]
    if profile == "thorough":
        argv += ["--fuzz-output-dir", str(scratch / "fuzz")]
        if fuzz_budget is not None:
            argv += ["--fuzz-budget", str(fuzz_budget)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1", TERM="dumb")
    cpu = math.ceil(limits.cpu)

    def limit_cpu() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    proc = subprocess.Popen(argv, cwd=scratch, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=limit_cpu)
    try:
        out, _ = proc.communicate(timeout=limits.wall)
    except BaseException:  # the wall clock, Ctrl-C or SIGTERM: the run goes with us
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        if not isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
            raise
        return "timeout", time.monotonic() - began, 0.0, [], ""
    seconds = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - used.ru_utime) + (after.ru_stime - used.ru_stime)
    if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL) and cpu_s >= cpu - 1:
        return "timeout", seconds, cpu_s, [], ""
    text = out.decode("utf-8", "replace")
    # a failing SHOULD rule leaves the verdict CERTIFIED: the report says the kit found it
    ok = survived(proc.returncode, text, report)
    failed = failing_rules(report) or sorted({
        m for line in text.splitlines() if re.search(r"\b(FAIL|NOT CERTIFIED|ERROR)", line)
        for m in RULE_ID.findall(line)})
    return ("survived" if ok else "killed"), seconds, cpu_s, failed, text


def _terminate(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


# -- the run -------------------------------------------------------------------------------------

def sanity(args: argparse.Namespace, mutants: list[Mutant], scratch: Path,
           profile: str) -> Limits:
    """Prove the set-up on ``profile``; returns the limits of a mutant's run."""
    unlimited = Limits(args.deadline, args.deadline)
    status, base, base_cpu, _, text = certify(profile, args.certify_seed, unlimited,
                                              args.fuzz_budget, scratch)
    if status != "survived":
        raise SetupError(f"the unmutated reference is not CERTIFIED by profile {profile} "
                         f"({status}); no mutation figure means anything:\n{text[-2000:]}")
    print(f"sanity [{profile}]: unmutated reference CERTIFIED in {base:.1f} s "
          f"({base_cpu:.1f} s CPU)")
    limits = Limits(base_cpu * args.timeout_factor + 10, max(300.0, base * 10))
    if profile != "ci" or args.no_sanity:
        return limits
    noop = Mutant(f"{mutants[0].module}:{NO_OP}:0", mutants[0].module, NO_OP, 0, 0, False)
    with applied(noop):
        status, seconds, _, _, _ = certify(profile, args.certify_seed, limits, None, scratch)
    if status != "survived":
        raise SetupError(f"cosmic-ray's no-op mutant of {noop.module} was {status}: certify is "
                         "not deterministic at this seed, or the tree is not the one installed")
    print(f"sanity [{profile}]: no-op mutant of {noop.module} survived ({seconds:.1f} s)")
    target = REFERENCE / "scope.py"
    original = target.read_bytes()
    try:
        target.write_bytes(b"raise RuntimeError('mutation benchmark: obvious mutant')\n" + original)
        status, seconds, _, _, _ = certify(profile, args.certify_seed, limits, None, scratch)
    finally:
        target.write_bytes(original)
    if status == "survived":
        raise SetupError("a reference/scope.py that raises on import was CERTIFIED: certify is "
                         "not importing this tree's reference/ (is the editable install of "
                         "another checkout?)")
    print(f"sanity [{profile}]: obvious mutant (scope.py raises on import) {status} "
          f"({seconds:.1f} s)")
    return limits


def run_profile(profile: str, chosen: list[Mutant], args: argparse.Namespace,
                scratch: Path, limits: Limits) -> list[Outcome]:
    outcomes = []
    width = len(str(len(chosen)))
    for n, mutant in enumerate(chosen, 1):
        with applied(mutant) as diff:
            status, seconds, cpu_s, rules, _ = certify(profile, args.certify_seed, limits,
                                                       args.fuzz_budget, scratch)
        outcome = Outcome(mutant.id, profile, status, round(seconds, 2), round(cpu_s, 2), rules,
                          diff)
        outcomes.append(outcome)
        where = f"{mutant.module}:{mutant.line}"
        oracle = " [oracle call]" if mutant.oracle_call else ""
        print(f"[{profile} {n:>{width}}/{len(chosen)}] {status:<8} {seconds:6.1f} s "
              f"{cpu_s:6.1f} s CPU  {where:<28} "
              f"{mutant.operator}#{mutant.occurrence}{oracle}"
              + (f"  ({', '.join(rules)})" if rules else ""), flush=True)
    return outcomes


def summary(profile: str, generated: int, sampled: list[Mutant], outcomes: list[Outcome],
            assumed_killed: int) -> dict[str, object]:
    counts = Counter(o.status for o in outcomes)
    killed = counts["killed"] + counts["timeout"] + assumed_killed
    by_id = {m.id: m for m in sampled}
    oracle = [o for o in outcomes if by_id[o.mutant].oracle_call]
    ratio = killed / len(sampled) if sampled else 0.0
    row = {"profile": profile, "generated": generated, "sampled": len(sampled),
           "run": len(outcomes), "killed": killed, "timeouts": counts["timeout"],
           "counted_from_ci": assumed_killed, "survived": counts["survived"],
           "ratio": round(ratio, 4),
           "oracle_call_sampled": sum(m.oracle_call for m in sampled),
           "oracle_call_survived": sum(o.status == "survived" for o in oracle)}
    print(f"\n{profile}: generated {generated}, sampled {len(sampled)}, killed {killed} "
          f"(timeouts {counts['timeout']}"
          + (f", {assumed_killed} killed by ci not re-run" if assumed_killed else "")
          + f"), survived {counts['survived']}, killed/sampled {ratio:.1%}")
    print(f"{profile}: of the sampled, {row['oracle_call_sampled']} sit where the reference "
          f"calls a subagent_tck.spec function or acts on its verdict "
          f"({row['oracle_call_survived']} of them survived)")
    survivors = [o for o in outcomes if o.status == "survived"]
    for o in survivors:
        print(f"  survivor {o.mutant}\n" + "".join(f"    {line}\n" for line in
                                                  o.diff.splitlines()[2:]), end="")
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=30, metavar="N",
                        help="mutants drawn at random from all generated (default 30; 0: all)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the sample (default 0)")
    parser.add_argument("--profile", choices=("ci", "thorough", "both"), default="both")
    parser.add_argument("--thorough-on", choices=("survivors", "all"), default="survivors",
                        help="with --profile both: run thorough on the ci survivors only "
                             "(default; ci's kills are counted for thorough, see README) or on "
                             "every sampled mutant")
    parser.add_argument("--module", action="append", default=[], metavar="GLOB",
                        help="mutate only these modules of reference/ (repeatable)")
    parser.add_argument("--skip-oracle-calls", action="store_true",
                        help="leave out mutants on a statement that calls a subagent_tck.spec "
                             "function")
    parser.add_argument("--annotations", action="store_true",
                        help="keep the mutants inside type annotations (equivalent: never "
                             "evaluated)")
    parser.add_argument("--certify-seed", type=int, default=0, metavar="N",
                        help="certify --seed (default 0)")
    parser.add_argument("--fuzz-budget", type=float, default=None, metavar="S",
                        help="certify --fuzz-budget for thorough (default: certify's own)")
    parser.add_argument("--timeout-factor", type=float, default=4.0,
                        help="a mutant's certify is stopped (and counted killed, as a timeout) "
                             "after this many times the unmutated run's CPU time, plus 10 s "
                             "(default 4); the wall clock allows 10 times the unmutated run")
    parser.add_argument("--deadline", type=float, default=900.0,
                        help="timeout of the unmutated runs (default 900 s)")
    parser.add_argument("--mutant", action="append", default=[], metavar="ID",
                        help="run only this mutant (module:operator:occurrence; repeatable)")
    parser.add_argument("--list", action="store_true", help="print the sampled ids and stop")
    parser.add_argument("--no-sanity", action="store_true",
                        help="skip the no-op and obvious-mutant proofs (not for figures)")
    parser.add_argument("--nice", type=int, default=15,
                        help="niceness of this run and its certify processes (default 15)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write every outcome and the summaries there")
    args = parser.parse_args(argv)

    if args.nice:
        with contextlib.suppress(OSError):
            os.nice(args.nice)
    began = time.monotonic()
    try:
        import cosmic_ray  # noqa: F401
    except ImportError:
        print("error: cosmic-ray is not installed; pip install -e '.[bench]'", file=sys.stderr)
        return 2
    try:
        files = reference_modules(args.module)
        mutants = enumerate_mutants(files)
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    real = [m for m in mutants if m.operator != NO_OP]
    in_annotations = sum(m.annotation for m in real)
    population = [m for m in real if (args.annotations or not m.annotation)
                  and not (args.skip_oracle_calls and m.oracle_call)]
    per_module = Counter(m.module for m in population)
    print(f"cosmic-ray: {len(real)} mutants of {len(files)} modules of reference/; "
          f"{in_annotations} inside annotations "
          + ("kept" if args.annotations else "left out (equivalent)")
          + f"; {len(population)} to sample from, "
          f"{sum(m.oracle_call for m in population)} of them where the reference calls the oracle "
          "or acts on its verdict")
    print("  " + ", ".join(f"{Path(k).name} {v}" for k, v in sorted(per_module.items())))
    sites = oracle_sites(files)
    print("  lines of reference/ that call a subagent_tck.spec function or use its verdict: "
          + ("; ".join(f"{k} {','.join(map(str, v))}" for k, v in sites.items()) or "none"))
    if args.mutant:
        known = {m.id: m for m in mutants}
        unknown = [i for i in args.mutant if i not in known]
        if unknown:
            print(f"error: no such mutant {unknown}; --list shows the ids", file=sys.stderr)
            return 2
        chosen = [known[i] for i in args.mutant]
    else:
        chosen, skipped = draw(population, args.sample or len(population), args.seed)
        print(f"sample: {len(chosen)} drawn at seed {args.seed}; {skipped} drawn on the way "
              "were not valid Python and are not counted (incompetent)")
    if args.list:
        for m in chosen:
            print(f"  {m.id}  line {m.line}" + ("  [oracle call]" if m.oracle_call else ""))
        return 0

    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(exclusive())
            require_clean_tree()
        except SetupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return measure(args, population, mutants, chosen, began)


def measure(args: argparse.Namespace, population: list[Mutant], mutants: list[Mutant],
            chosen: list[Mutant], began: float) -> int:
    snapshot = Snapshot()
    previous = signal.signal(signal.SIGTERM, _terminate)
    drop_bytecode()
    rows: list[dict[str, object]] = []
    outcomes: list[Outcome] = []
    profiles = ["ci", "thorough"] if args.profile == "both" else [args.profile]
    try:
        with tempfile.TemporaryDirectory(prefix="tck-mutation-") as tmp:
            scratch = Path(tmp)
            ci_killed: set[str] = set()
            for profile in profiles:
                limits = sanity(args, population or mutants, scratch, profile)
                print(f"[{profile}] a mutant's certify is stopped (a timeout: killed) after "
                      f"{limits.cpu:.0f} s of CPU or {limits.wall:.0f} s of wall clock")
                run = chosen
                if profile == "thorough" and len(profiles) == 2 and args.thorough_on == "survivors":
                    run = [m for m in chosen if m.id not in ci_killed]
                    print(f"[thorough] on the {len(run)} ci survivors; the {len(ci_killed)} "
                          "mutants ci killed are counted killed")
                got = run_profile(profile, run, args, scratch, limits)
                outcomes += got
                if profile == "ci":
                    ci_killed = {o.mutant for o in got if o.status != "survived"}
                assumed = len(chosen) - len(run)
                rows.append(summary(profile, len(population), chosen, got, assumed))
    except KeyboardInterrupt:
        print("\ninterrupted: restoring reference/", file=sys.stderr)
        return 130
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        changed = snapshot.restore()
        signal.signal(signal.SIGTERM, previous)
        if changed:
            print(f"restored {changed} from the snapshot", file=sys.stderr)
        drop_bytecode()
    elapsed = time.monotonic() - began
    print(f"\nwall time {elapsed / 60:.1f} min; reference/ restored "
          f"({hashlib.sha256(b''.join(snapshot.files.values())).hexdigest()[:12]})")
    if args.json:
        args.json.write_text(json.dumps({
            "seed": args.seed, "certify_seed": args.certify_seed, "wall_s": round(elapsed, 1),
            "summaries": rows, "mutants": [asdict(m) for m in chosen],
            "outcomes": [asdict(o) for o in outcomes]}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
