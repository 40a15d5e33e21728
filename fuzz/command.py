"""``subagent-tck fuzz``: differential fuzzing of a target against the spec oracle.

::

    subagent-tck fuzz --target TARGET [--budget SECONDS] [--max-examples N] [--seed N]
                      [--profile ci|nightly] [--database DIR | --no-database]
                      [--replay FILE] [--output-dir DIR]

Exit codes (as ``certify``'s, :class:`~subagent_tck.conformance.core.exitcode.ExitCode`): 0 no
divergence (or a replay that no longer diverges), 1 a divergence (the shrunk steps and the
replay command are printed), 2 usage, 3 the target is unreachable or broke the protocol.
Progress lines go to stderr; the report goes to stdout. The conformance CLI calls
:func:`add_arguments` and :func:`run` (importing this module lazily).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from subagent_tck.conformance.core.clierror import report_error
from subagent_tck.conformance.core.exitcode import ExitCode
from subagent_tck.conformance.core.target import Target
from subagent_tck.spec import TckError

from .campaign import DEFAULT_DATABASE, DEFAULT_OUTPUT, PROFILES, CampaignResult


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
    parser.add_argument("--database", default=DEFAULT_DATABASE, metavar="DIR",
                        help="Hypothesis example database directory; failures found once are "
                             f"tried first next time (default {DEFAULT_DATABASE})")
    parser.add_argument("--no-database", action="store_true",
                        help="use no example database")
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

    for name, value in (("--budget", args.budget), ("--max-examples", args.max_examples)):
        if value is not None and value <= 0:
            return report_error(f"{name} must be positive, got {value}", stream=err)
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
