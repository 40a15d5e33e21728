"""The ``subagent-tck`` command line (DESIGN.md, "Command line").

::

    subagent-tck rules [--format text|json|markdown]
    subagent-tck explain RULE-ID [--format text|json|markdown]
    subagent-tck certify --target TARGET [--edition E] [--rule ID ...] [--profile ci|thorough]
                         [--seed N] [--baseline FILE] [--format text|json|junit|markdown]
                         [--output FILE] [--timeout S] [--deadline S]
                         [--fuzz-budget S] [--fuzz-output-dir DIR]     (its fuzz campaign)
    subagent-tck fuzz | fuzz-api | serve | openapi ...    (see PLUGGED: other parts' commands)

Exit codes are :class:`~.exitcode.ExitCode`. A user mistake prints ``error: <message>`` on
stderr and exits 2, never with a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import IO, TYPE_CHECKING, Any

from subagent_tck.spec import CATALOGUE, Edition, ErrorCode, TckError, get_rule

from . import busypoll
from .exitcode import ExitCode, for_certificate, for_error

if TYPE_CHECKING:
    from .runner import Handler, Suite

FORMATS = ("text", "json", "junit", "markdown")
#: The fuzz campaign that ``--profile thorough`` adds to a certification.
FUZZ_CHECK = "subagent_tck.fuzz.campaign_check"
RULE_FORMATS = ("text", "json", "markdown")

#: Commands that other parts of the kit provide: the module has ``add_arguments(parser)`` and
#: ``run(args) -> int`` and is imported only when its command runs. A module that is not
#: installed simply offers no command.
PLUGGED: dict[str, tuple[str, str]] = {
    "fuzz": ("subagent_tck.fuzz.command",
             "differential fuzzing: a target and the oracle in lockstep"),
    "fuzz-api": ("subagent_tck.conformance.api_fuzz",
                 "fuzz a target's HTTP driver API (Schemathesis)"),
    "serve": ("subagent_tck.conformance.http_server",
              "serve a target (default: the reference) behind the HTTP driver API"),
    "openapi": ("subagent_tck.conformance.openapi", "print the HTTP driver API document"),
}


def _rules(args: argparse.Namespace) -> int:
    from subagent_tck.spec.render import docs_markdown, render_catalogue

    text = docs_markdown() if args.format == "markdown" else render_catalogue(CATALOGUE,
                                                                               args.format)
    sys.stdout.write(text)
    return ExitCode.CERTIFIED


def _explain(args: argparse.Namespace) -> int:
    from subagent_tck.spec.render import render_rule

    sys.stdout.write(render_rule(get_rule(args.rule_id), args.format))
    return ExitCode.CERTIFIED


def _reporter(fmt: str, stream: IO[str]) -> Handler:
    if fmt == "json":
        from .report_json import JsonReporter

        return JsonReporter(stream)
    if fmt == "junit":
        from .report_junit import JUnitReporter

        return JUnitReporter(stream)
    if fmt == "markdown":
        from .report_markdown import MarkdownReporter

        return MarkdownReporter(stream)
    from rich.console import Console

    from .report_text import TextReporter

    if stream is sys.stdout:
        return TextReporter()
    return TextReporter(Console(file=stream, width=100, color_system=None))


def _certify(args: argparse.Namespace) -> int:
    from .baseline import load_baseline
    from .report_text import ProgressReporter, TextReporter, progress_wanted
    from .runner import RunConfig, certify
    from .targets import load_target

    baseline = load_baseline(args.baseline) if args.baseline else None  # ids: checked by certify
    suite = _suite(args)
    config = RunConfig(
        target_spec=args.target, edition=args.edition, rules=tuple(args.rule or ()),
        profile=args.profile, seed=args.seed, timeout=args.timeout, deadline=args.deadline,
        baseline=baseline,
    )
    with ExitStack() as stack:
        _private_hypothesis_storage(stack)
        target = load_target(args.target)
        stack.callback(_close, target)
        handlers: list[Handler] = []
        if progress_wanted(sys.stderr):
            handlers.append(ProgressReporter())
        if args.output:
            try:
                stream = stack.enter_context(open(args.output, "w", encoding="utf-8"))
            except OSError as exc:
                raise TckError(ErrorCode.USAGE, f"cannot write --output {args.output!r} "
                               f"({exc.strerror}): pass a writable file path") from None
            handlers.append(_reporter(args.format, stream))
            handlers.append(TextReporter())
        else:
            handlers.append(_reporter(args.format, sys.stdout))
        certificate = certify(target, config, handlers=handlers, suite=suite)
    return for_certificate(certificate)


def _suite(args: argparse.Namespace) -> Suite | None:
    from .report_text import progress_wanted

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    # the campaign's progress lines, like the checks' progress, only for a terminal
    return suite_for(args.target, args.profile, fuzz_budget=args.fuzz_budget,
                     fuzz_output_dir=args.fuzz_output_dir,
                     progress=progress if progress_wanted(sys.stderr) else None,
                     options=("--profile", "--fuzz-budget", "--fuzz-output-dir"),
                     rules=tuple(args.rule or ()))


def suite_for(target_spec: str, profile: str, *, fuzz_budget: float | None = None,
              fuzz_output_dir: str | None = None, progress: Callable[[str], None] | None = None,
              options: tuple[str, str, str] = ("--profile", "--fuzz-budget",
                                               "--fuzz-output-dir"),
              rules: Sequence[str] = ()) -> Suite | None:
    """The suite a profile runs: the default suite plus the generated fuzz campaign against
    ``target_spec``, sized by the profile (``runner.PROFILES``: deployments, and a wall cap
    that ``fuzz_budget`` overrides). Fuzz is imported only here: nothing else of conformance
    imports it. A partial ``ci`` run (``rules`` given: the replay of a fixed case) runs no
    campaign, so that it stays quick and shows that case alone; None then (the default
    suite). Shared by the command line and the pytest plugin; their options for profile, fuzz
    budget and fuzz output directory are ``options``, named so in the usage errors."""
    from .runner import PROFILES, Suite

    profile_option, *names = options
    fuzz_options = [o for o, v in zip(names, (fuzz_budget, fuzz_output_dir), strict=True)
                    if v is not None]
    chosen = PROFILES.get(profile)
    if chosen is None or chosen.fuzz_examples <= 0 or (rules and profile == "ci"
                                                       and not fuzz_options):
        return None
    if not _available(FUZZ_CHECK):
        raise TckError(ErrorCode.USAGE, f"{profile_option} {profile} fuzzes the target, but "
                       f"{FUZZ_CHECK} is not installed: reinstall subagent-tck")
    from subagent_tck.fuzz.campaign import DEFAULT_OUTPUT
    from subagent_tck.fuzz.campaign_check import campaign_check

    check = campaign_check(
        target_spec, budget_seconds=fuzz_budget or chosen.fuzz_seconds,
        max_examples=chosen.fuzz_examples, output_dir=fuzz_output_dir or DEFAULT_OUTPUT,
        progress=progress, profile=chosen.name,
    )
    default = Suite.default()
    return Suite(default.rules, {**default.checks, check.name: check})


def _private_hypothesis_storage(stack: ExitStack) -> None:
    """Keep Hypothesis' caches out of the user's working directory (no stray .hypothesis/),
    unless they chose a place with HYPOTHESIS_STORAGE_DIRECTORY."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    from hypothesis.configuration import set_hypothesis_home_dir

    home = stack.enter_context(tempfile.TemporaryDirectory(prefix="subagent-tck-"))
    set_hypothesis_home_dir(home)
    stack.callback(set_hypothesis_home_dir, None)


def _close(target: object) -> None:
    close = getattr(target, "close", None)
    if callable(close):
        try:
            close()
        except Exception as exc:  # the verdict is made; say so, do not crash
            print(f"warning: closing the target failed: {exc}", file=sys.stderr)


def seconds(text: str) -> float:
    """An option's positive, finite number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of seconds")
    return value


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _plug(sub: Any, name: str, module_name: str, help_text: str, wanted: bool) -> None:
    parser = sub.add_parser(name, help=help_text, description=help_text[0].upper()
                            + help_text[1:] + ".")
    if not wanted:
        return  # arguments are read only for the command that runs (imports stay lazy)
    module = importlib.import_module(module_name)
    module.add_arguments(parser)
    parser.set_defaults(run=module.run)


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="subagent-tck",
        description="Conformance kit for subagent delegation controls: persona, tool "
                    "visibility and delegation depth.",
        epilog="exit codes: " + ", ".join(f"{c.value} {c.name.lower()}" for c in ExitCode),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    rules = sub.add_parser("rules", help="print the rule catalogue")
    rules.add_argument("--format", choices=RULE_FORMATS, default="text")
    rules.set_defaults(run=_rules)

    explain = sub.add_parser("explain", help="one rule, with its examples")
    explain.add_argument("rule_id", metavar="RULE-ID", help="e.g. TF-01")
    explain.add_argument("--format", choices=RULE_FORMATS, default="text")
    explain.set_defaults(run=_explain)

    certify = sub.add_parser(
        "certify", help="certify a target's advertised capabilities",
        description="Run every rule that applies to TARGET and print its certificate.",
        epilog='TARGET: reference | python:MODULE:FACTORY | http://127.0.0.1:PORT | cmd:"COMMAND '
               '..."',
    )
    certify.add_argument("--target", required=True, metavar="TARGET")
    certify.add_argument("--edition", choices=[e.value for e in Edition],
                         help="default: preset-composition when the target supports it")
    certify.add_argument("--rule", action="append", metavar="ID",
                         help="run only this rule (repeatable); a partial run never certifies")
    certify.add_argument("--profile", choices=("ci", "thorough"), default="ci",
                         help="ci: 10 examples per property; thorough: 200, then a fuzz "
                              "campaign whose findings join the certificate")
    certify.add_argument("--fuzz-budget", type=seconds, default=None, metavar="S",
                         help="cap the fuzz campaign at S seconds (ci: none, its "
                         "deployments decide; thorough: 60)")
    certify.add_argument("--fuzz-output-dir", default=None, metavar="DIR",
                         help="where fuzz replay files go (default .subagent-tck/fuzz)")
    certify.add_argument("--seed", type=int, default=0, help="fixes every random choice")
    certify.add_argument("--baseline", metavar="FILE", help="TOML file of expected failures")
    certify.add_argument("--format", choices=FORMATS, default="text")
    certify.add_argument("--output", metavar="FILE",
                         help="write the report there; a text summary still goes to stdout")
    certify.add_argument("--timeout", type=seconds, default=30.0, metavar="S",
                         help="per check (default 30)")
    certify.add_argument("--deadline", type=seconds, default=600.0, metavar="S",
                         help="for the whole run (default 600)")
    certify.set_defaults(run=_certify)

    command = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in PLUGGED.items():
        if _available(module_name):
            _plug(sub, name, module_name, help_text, wanted=name == command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see :class:`~.exitcode.ExitCode`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed the usage error (or --help)
        return int(exc.code) if isinstance(exc.code, int) else ExitCode.USAGE
    try:
        busypoll.window()  # a bad SUBAGENT_TCK_POLL_US is a usage error before anything starts
        return int(args.run(args))
    except TckError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return int(for_error(exc.code))


if __name__ == "__main__":
    sys.exit(main())
