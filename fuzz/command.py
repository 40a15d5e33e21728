"""``subagent-tck fuzz``: differential fuzzing of a target against the spec oracle.

::

    subagent-tck fuzz --target TARGET [--budget SECONDS] [--max-examples N] [--seed N]
                      [--profile ci|nightly] [--database DIR|redis://HOST:PORT/DB | --no-database]
                      [--engine in-process|hypofuzz] [--workers N] [--stall-timeout S]
                      [--replay FILE] [--output-dir DIR]

Exit codes (as ``certify``'s, :class:`~subagent_tck.conformance.core.exitcode.ExitCode`): 0 no
divergence (or a replay that no longer diverges), 1 a divergence (the shrunk steps and the
replay command are printed), 2 usage, 3 the target is unreachable or broke the protocol.
Progress lines go to stderr; the report goes to stdout. The conformance CLI calls
:func:`add_arguments` and :func:`run` (importing this module lazily).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TextIO

from subagent_tck.conformance.core.clierror import report_error
from subagent_tck.conformance.core.exitcode import ExitCode
from subagent_tck.conformance.core.target import Target
from subagent_tck.spec import TckError

from .campaign import DEFAULT_OUTPUT, PROFILES, CampaignResult
from .database import DEFAULT_DATABASE

#: The engines that run a campaign: this process, or HypoFuzz's workers.
ENGINES = ("in-process", "hypofuzz")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``subagent-tck fuzz``."""
    parser.add_argument("--target", required=True,
                        help="reference | python:MODULE:FACTORY | http://127.0.0.1:PORT | "
                             'cmd:"COMMAND ..."')
    parser.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                        help="stop after this many seconds (default: the profile's)")
    parser.add_argument("--max-examples", type=int, default=None, metavar="N",
                        help="stop after this many deployments (default: the profile's)")
    parser.add_argument("--seed", type=int, default=None,
                        help="fix every random choice (ci profile: 0; nightly: random, printed)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci",
                        help="ci: 30 s, fixed seed; nightly: one hour, fresh seed")
    parser.add_argument("--database", default=DEFAULT_DATABASE, metavar="DIR|redis://...",
                        help="Hypothesis example database: a directory or redis://HOST:PORT/DB "
                             "shared by several machines; failures found once are tried first "
                             f"next time, by every worker sharing it (default {DEFAULT_DATABASE})")
    parser.add_argument("--no-database", action="store_true",
                        help="use no example database")
    parser.add_argument("--engine", choices=ENGINES, default=ENGINES[0],
                        help="in-process: one process, seeded (default); hypofuzz: HypoFuzz's "
                             "worker processes sharing the database (docs/fuzz.md#hypofuzz)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="hypofuzz: worker processes on this machine (default: its cores)")
    parser.add_argument("--stall-timeout", type=float, default=None, metavar="S",
                        help="hypofuzz: a worker that applies no step for S seconds counts as "
                             "hung, and the campaign stops with an error (default 120)")
    parser.add_argument("--replay", default=None, metavar="FILE",
                        help="re-execute a replay file written by an earlier run")
    parser.add_argument("--output-dir", default=DEFAULT_OUTPUT, metavar="DIR",
                        help=f"where replay files are written (default {DEFAULT_OUTPUT})")


def load_target(spec: str) -> Target:
    """The target a TARGET spec names (the conformance loader: reference, python:, ...)."""
    from subagent_tck.conformance.transports.targets import load_target as load

    return load(spec)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``subagent-tck fuzz`` with parsed ``args``; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr

    def progress(line: str) -> None:
        print(line, file=err, flush=True)

    from .campaign import replay, run_campaign

    for name, value in (("--budget", args.budget), ("--max-examples", args.max_examples),
                        ("--workers", args.workers), ("--stall-timeout", args.stall_timeout)):
        if value is not None and value <= 0:
            return report_error(f"{name} must be positive, got {value}", stream=err)
    if args.engine == "hypofuzz" and not args.replay:
        problem = _hypofuzz_usage(args)
        if problem:
            return report_error(problem, stream=err)
        return _run_hypofuzz(args, out, err, progress)
    if args.workers is not None or args.stall_timeout is not None:
        return report_error("--workers and --stall-timeout belong to --engine hypofuzz",
                            stream=err)
    target: Target | None = None
    try:
        target = load_target(args.target)
        result: CampaignResult
        if args.replay:
            result = replay(target, args.replay)
        else:
            result = run_campaign(
                target,
                budget_seconds=args.budget,
                max_examples=args.max_examples,
                seed=args.seed,
                profile=args.profile,
                database_dir=None if args.no_database else args.database,
                progress=progress,
                output_dir=args.output_dir,
                target_id=args.target,
            )
    except TckError as exc:
        return report_error(exc, stream=err)
    finally:
        if target is not None:
            target.close()
    print(result.report(args.target), file=out)
    if args.replay:
        verdict = ("the same divergence showed again" if result.reproduced
                   else "a different divergence showed" if result.diverged
                   else "no divergence any more")
        print(f"replay of {args.replay}: {verdict}", file=out)
    return _exit_code(result)


def _hypofuzz_usage(args: argparse.Namespace) -> str | None:
    if args.no_database:
        return ("--engine hypofuzz shares findings through the example database: drop "
                "--no-database")
    for option, value in (("--seed", args.seed), ("--max-examples", args.max_examples)):
        if value is not None:
            return (f"{option} belongs to the in-process engine: HypoFuzz chooses its own "
                    "inputs and runs until --budget")
    return None


def _run_hypofuzz(args: argparse.Namespace, out: TextIO, err: TextIO,
                  progress: Callable[[str], None]) -> int:
    from .hypofuzz_run import STALL_SECONDS, run_hypofuzz

    try:
        result = run_hypofuzz(
            args.target, workers=args.workers or os.cpu_count() or 1,
            budget_seconds=args.budget, profile=args.profile, database=args.database,
            output_dir=args.output_dir, progress=progress,
            stall_seconds=args.stall_timeout or STALL_SECONDS)
    except TckError as exc:
        return report_error(exc, stream=err)
    print(result.report(args.target), file=out)
    return _exit_code(result)


def _exit_code(result: CampaignResult) -> int:
    if result.diverged:
        return int(ExitCode.FAILED)
    if result.error is not None:
        return int(ExitCode.TARGET_BROKEN)
    return int(ExitCode.CERTIFIED)


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (``python -m subagent_tck.fuzz.command``), for use before the lead
    wires the subcommand into the conformance CLI."""
    parser = argparse.ArgumentParser(prog="subagent-tck fuzz", description=__doc__.split("\n")[0])
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
