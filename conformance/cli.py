"""The ``subagent-tck`` command line (docs/architecture.md).

::

    subagent-tck --version
    subagent-tck rules [--format text|json|markdown]
    subagent-tck explain RULE-ID [--format text|json|markdown]
    subagent-tck certify --target TARGET [--edition E] [--rule ID ...] [--provider NAME ...]
                         [--profile ci|thorough]
                         [--seed N] [--baseline FILE] [--promises FILE]
                         [--format text|json|junit|markdown]
                         [--output FILE] [--report FORMAT=FILE ...] [--timeout S]
                         [--deadline S] [--timings] [--jobs N]
                         [--fuzz-budget S] [--fuzz-output-dir DIR]     (its fuzz campaign)
    subagent-tck fuzz | fuzz-api | serve | openapi | promises | matrix ...    (see PLUGGED)

Exit codes are :class:`~.exitcode.ExitCode`. Every error that ends a command prints one line,
``subagent-tck: error: <message> (code <CODE>)``, on stderr (:mod:`.clierror`), never a
traceback; a mistake of the user exits 2, and a misspelt name gets a "did you mean"
(:mod:`.suggest`). ``subagent-tck --version`` and ``python -m subagent_tck`` work too.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagent_tck.spec import CATALOGUE, Edition, ErrorCode, TckError, get_rule

from .cliparse import Parser, VersionAction
from .cliruns import JOBS_VARIABLE, available, cores, default_jobs, jobs, recipe_for, suite_for
from .core.clierror import report_error
from .core.exitcode import ExitCode, for_certificate, for_error
from .core.suggest import rule_hint
from .engine.profiles import DEFAULT as DEFAULT_PROFILE
from .engine.profiles import PROFILES, profile_help
from .transports import busypoll

if TYPE_CHECKING:
    from .core.certificate import Certificate
    from .engine.runner import Handler, Suite
    from .report.report_files import ReportFile

FORMATS = ("text", "json", "junit", "markdown")
RULE_FORMATS = ("text", "json", "markdown")

#: Commands that other parts of the kit provide: the module has ``add_arguments(parser)`` and
#: ``run(args) -> int`` and is imported only when its command runs. A module that is not
#: installed simply offers no command.
PLUGGED: dict[str, tuple[str, str]] = {
    "fuzz": ("subagent_tck.fuzz.command",
             "differential fuzzing: a target and the oracle in lockstep"),
    "fuzz-api": ("subagent_tck.conformance.api_fuzz",
                 "fuzz a target's HTTP driver API (Schemathesis)"),
    "serve": ("subagent_tck.conformance.transports.http_server",
              "serve a target (default: the reference) behind the HTTP driver API"),
    "openapi": ("subagent_tck.conformance.transports.openapi",
                "print the HTTP driver API document"),
    "promises": ("subagent_tck.conformance.promises_command",
                 "check a plugin's promises (what each child gets) on the model wire"),
    "baseline": ("subagent_tck.conformance.baseline_command",
                 "write or update a baseline (expected failures) from a certificate"),
    "diff": ("subagent_tck.conformance.diff_command",
             "what changed between two certificates (exit 1: something got worse)"),
    "matrix": ("subagent_tck.conformance.matrix_command",
               "certificates side by side, as a static site (docs/matrix.md)"),
}


def _rules(args: argparse.Namespace) -> int:
    from subagent_tck.spec.render import docs_markdown, render_catalogue

    text = docs_markdown() if args.format == "markdown" else render_catalogue(CATALOGUE,
                                                                               args.format)
    sys.stdout.write(text)
    return ExitCode.CERTIFIED


def _explain(args: argparse.Namespace) -> int:
    from subagent_tck.spec.render import render_rule

    try:
        rule = get_rule(args.rule_id)
    except TckError as exc:
        said, suggestion = repr(args.rule_id), rule_hint(args.rule_id, [r.id for r in CATALOGUE])
        message = (exc.message.replace(said, said + suggestion, 1) if said in exc.message
                   else exc.message + suggestion)
        raise TckError(exc.code, message) from None
    from .engine.checks import load_checks
    from .engine.partitions import explained

    declared = [(c.name, p) for c in load_checks().values() for p in c.partitions
                if p.rule == rule.id]
    sys.stdout.write(explained(render_rule(rule, args.format), args.format, declared))
    return ExitCode.CERTIFIED


def _report_files(args: argparse.Namespace) -> list[ReportFile]:
    """The report files of ``certify``: every ``--report FORMAT=FILE``, and ``--output`` in
    ``--format`` (default text); checked writable before anything runs."""
    from .report.report_files import ReportFile, check_writable, parse_report

    reports = [parse_report(value) for value in args.report or ()]
    if args.output:
        reports.append(ReportFile(args.format, Path(args.output), "--output"))
    check_writable(reports)
    return reports


def _print_report(fmt: str, certificate: Certificate) -> None:
    """The report on stdout: the text summary (coloured on a terminal), or ``fmt``."""
    if fmt == "text":
        from rich.console import Console

        from .report.report_text import write_text

        write_text(certificate, Console())
        return
    from .report.report_files import render

    sys.stdout.write(render(fmt, certificate))
    sys.stdout.flush()


def _certify(args: argparse.Namespace) -> int:
    from .report.report_files import write_errors

    reports = _report_files(args)
    try:
        return _certify_run(args, reports)
    except TckError as exc:  # ended before any check ran: the reports say why
        code = for_error(exc.code)
        write_errors(reports, args.target, exc, int(code))
        raise
    except KeyboardInterrupt:  # before the checks started: nothing to report but that
        interrupted = TckError(ErrorCode.USAGE, "interrupted (Ctrl-C) before any check ran")
        written = write_errors(reports, args.target, interrupted, int(ExitCode.INTERRUPTED),
                               "INTERRUPTED")
        where = f"; wrote {', '.join(written)}" if written else ""
        print(f"interrupted: no check ran{where}; the target was closed", file=sys.stderr)
        return ExitCode.INTERRUPTED


def _certify_run(args: argparse.Namespace, reports: list[ReportFile]) -> int:
    from .core.baseline import load_baseline
    from .engine.runner import RunConfig, certify
    from .engine.seed import fresh_seed
    from .report.report_files import write_all
    from .report.report_text import ProgressReporter, progress_wanted
    from .transports.targets import load_target

    baseline = load_baseline(args.baseline) if args.baseline else None  # ids: checked by certify
    promises = None
    if args.promises:  # a bad file is a usage error naming its line, before anything starts
        from .core.promises_file import load as load_promises

        promises = load_promises(args.promises)
    suite = _suite(args)
    config = RunConfig(
        target_spec=args.target, edition=args.edition, rules=tuple(args.rule or ()),
        profile=args.profile, seed=fresh_seed() if args.seed is None else args.seed,
        timeout=args.timeout, deadline=args.deadline,
        baseline=baseline, providers=tuple(args.provider or ()),
        promises=promises, promises_path=args.promises or "", timings=args.timings,
        jobs=args.jobs or default_jobs(),
    )
    recipe = recipe_for(args.target, args.profile, wait=args.wait, fuzz_budget=args.fuzz_budget,
                        fuzz_output_dir=args.fuzz_output_dir, rules=tuple(args.rule or ()))
    with ExitStack() as stack:
        _private_hypothesis_storage(stack)
        target = load_target(args.target, wait=args.wait)
        stack.callback(_close, target)
        handlers: list[Handler] = []
        if progress_wanted(sys.stderr):
            handlers.append(ProgressReporter())
        certificate = certify(target, config, handlers=handlers, suite=suite, recipe=recipe)
        write_all(reports, certificate)
    if certificate.interrupted:  # one line, after the target (and its processes) is closed
        ran = sum(1 for run in certificate.checks)
        where = (f"; wrote {', '.join(str(r.path) for r in reports)} (marked interrupted)"
                 if reports else "")
        print(f"interrupted: {ran} check run(s) finished{where}; the target was closed and "
              "its processes stopped", file=sys.stderr)
    else:
        _print_report("text" if reports else args.format, certificate)
    return for_certificate(certificate)


def _reporting_usage_errors(argv: Sequence[str],
                            error: Callable[[str], Any]) -> Callable[[str], Any]:
    """``certify``'s argparse error, which first replaces the reports the command line names
    (as far as they can be read from it) with ones that say why the run never started: a
    usage error never leaves an earlier run's pass in place (docs/certify.md#outputs)."""

    def report_then_fail(message: str) -> Any:
        from .report.report_files import ReportFile, parse_report, write_errors

        values: dict[str, list[str]] = {"--report": [], "--output": [], "--format": [],
                                        "--target": []}
        tokens = list(argv)
        for i, token in enumerate(tokens):
            name, eq, value = token.partition("=")
            if name in values:
                if eq:
                    values[name].append(value)
                elif i + 1 < len(tokens):
                    values[name].append(tokens[i + 1])
        reports: list[ReportFile] = []
        for value in values["--report"]:
            try:
                reports.append(parse_report(value))
            except TckError:
                continue
        fmt = next((f for f in reversed(values["--format"]) if f in FORMATS), "text")
        reports += [ReportFile(fmt, Path(value), "--output") for value in values["--output"][-1:]]
        target = (values["--target"] or ["(not given)"])[-1]
        write_errors(reports, target, TckError(ErrorCode.USAGE, message), int(ExitCode.USAGE))
        return error(message)

    return report_then_fail


def _suite(args: argparse.Namespace) -> Suite | None:
    from .report.report_text import progress_wanted

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    # the campaign's progress lines, like the checks' progress, only for a terminal
    return suite_for(args.target, args.profile, fuzz_budget=args.fuzz_budget,
                     fuzz_output_dir=args.fuzz_output_dir,
                     progress=progress if progress_wanted(sys.stderr) else None,
                     options=("--profile", "--fuzz-budget", "--fuzz-output-dir"),
                     rules=tuple(args.rule or ()))


#: Hypothesis' table of Unicode characters by category (``unicode_data/`` of its storage): the
#: one thing of a run's private storage worth keeping, since building it costs about a second.
_UNICODE_DATA = "unicode_data"


def _unicode_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "subagent-tck" / "hypothesis"


def _private_hypothesis_storage(stack: ExitStack) -> None:
    """Keep Hypothesis' caches out of the user's working directory (no stray .hypothesis/),
    unless they chose a place with HYPOTHESIS_STORAGE_DIRECTORY. Each run gets a fresh
    directory, so that no example database carries one run's draws into another; only the
    Unicode tables are copied in from the user's cache and back (best effort: a cache that
    cannot be read or written only costs the seconds Hypothesis takes to build them again)."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    from hypothesis.configuration import set_hypothesis_home_dir

    home = stack.enter_context(tempfile.TemporaryDirectory(prefix="subagent-tck-"))
    cache = _unicode_cache() / _UNICODE_DATA
    with contextlib.suppress(OSError):
        if cache.is_dir():
            shutil.copytree(cache, Path(home) / _UNICODE_DATA)
    stack.callback(_keep_unicode_tables, Path(home) / _UNICODE_DATA, cache)
    set_hypothesis_home_dir(home)
    stack.callback(set_hypothesis_home_dir, None)


def _keep_unicode_tables(built: Path, cache: Path) -> None:
    """Copy into the user's cache every table this run built that the cache lacks: a table per
    Unicode version (another Python) and per codec (the UTF-8 one alone takes Hypothesis about
    two seconds), so that the cache grows with what runs draw instead of keeping only what the
    first run did. Each file lands whole or not at all (runs may race); a table already cached
    is left alone."""
    with contextlib.suppress(OSError):
        for table in sorted(built.rglob("*")):
            kept = cache / table.relative_to(built)
            if not table.is_file() or table.name.startswith(".") or kept.exists():
                continue
            kept.parent.mkdir(parents=True, exist_ok=True)
            fd, staging = tempfile.mkstemp(prefix=".table-", dir=kept.parent)
            os.close(fd)
            try:
                shutil.copyfile(table, staging)
                os.replace(staging, kept)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(staging)


def _close(target: object) -> None:
    close = getattr(target, "close", None)
    if callable(close):
        try:
            close()
        except Exception as exc:  # the verdict is made; say so, do not crash
            from .core.untrusted import for_terminal

            print(f"warning: closing the target failed: {for_terminal(str(exc))}",
                  file=sys.stderr)


def seconds(text: str) -> float:
    """An option's positive, finite number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of seconds")
    return value


def _plug(sub: Any, name: str, module_name: str, help_text: str, wanted: bool) -> None:
    parser = sub.add_parser(name, help=help_text, description=help_text[0].upper()
                            + help_text[1:] + ".")
    if not wanted:
        return  # arguments are read only for the command that runs (imports stay lazy)
    module = importlib.import_module(module_name)
    module.add_arguments(parser)
    parser.set_defaults(run=module.run)


def build_parser(argv: Sequence[str] = (), prog: str = "subagent-tck") -> argparse.ArgumentParser:
    parser = Parser(
        prog=prog,
        description="Conformance kit for subagent delegation controls: persona, tool "
                    "visibility, delegation depth, spawn policy and model.",
        epilog="exit codes: " + ", ".join(f"{c.value} {c.name.lower()}" for c in ExitCode),
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    rules = sub.add_parser("rules", help="print the rule catalogue")
    rules.add_argument("--format", choices=RULE_FORMATS, default="text")
    rules.set_defaults(run=_rules)

    explain = sub.add_parser("explain", help="one rule, with its examples and the partitions "
                             "of its domain the checks draw")
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
    certify.add_argument("--provider", action="append", metavar="NAME",
                         help="certify only this provider (repeatable): the rules that bind "
                              "the whole target still run; the others' capabilities are not "
                              "judged")
    certify.add_argument("--profile", choices=tuple(PROFILES), default=DEFAULT_PROFILE,
                         help=profile_help())
    certify.add_argument("--fuzz-budget", type=seconds, default=None, metavar="S",
                         help="cap the fuzz campaign at S seconds (ci: none, its "
                         "deployments decide; thorough: 60)")
    certify.add_argument("--fuzz-output-dir", default=None, metavar="DIR",
                         help="where fuzz replay files go (default .subagent-tck/fuzz)")
    certify.add_argument("--seed", type=int, default=None,
                         help="fixes every random choice (default: a fresh seed, printed)")
    certify.add_argument("--baseline", metavar="FILE", help="TOML file of expected failures")
    certify.add_argument("--promises", metavar="FILE",
                         help="also check this promises file (docs/promises.md): its items "
                         "join the certificate; a promise not kept fails the run")
    certify.add_argument("--format", choices=FORMATS, default="text",
                         help="of stdout, or of --output")
    certify.add_argument("--output", metavar="FILE",
                         help="write the report there; a text summary still goes to stdout")
    certify.add_argument("--report", action="append", metavar="FORMAT=FILE",
                         help="also write a report in FORMAT (text, json, junit, markdown) to "
                              "FILE (repeatable, e.g. --report junit=tck.xml --report "
                              "json=cert.json); every report is replaced atomically")
    certify.add_argument("--timeout", type=seconds, default=30.0, metavar="S",
                         help="per check (default 30)")
    certify.add_argument("--deadline", type=seconds, default=600.0, metavar="S",
                         help="for the whole run (default 600)")
    certify.add_argument("--timings", action="store_true",
                         help="time every check run, the fuzz campaign and every target "
                              "operation (deploy, start, view, ...): a timings object in the "
                              "JSON report, the slowest ten check runs and operations at the "
                              "end of the text report; outcomes never change")
    certify.add_argument("--jobs", type=jobs, default=None, metavar="N",
                         help="run N check runs and campaign shards at once, each in a worker "
                              "process with a target of its own (a cmd: target starts an adapter "
                              f"per worker); default: {JOBS_VARIABLE}, else the number of cores "
                              f"({cores()} here); 1: one after another in this process. The "
                              "same seed gives the same certificate whatever N")
    certify.add_argument("--wait", type=seconds, default=None, metavar="S",
                         help="http(s):// targets: keep trying to reach the target for S "
                              "seconds (exit 3 if it never answers); cmd: targets: how long "
                              "the ready line may take (default 30)")
    certify.set_defaults(run=_certify)
    certify.error = _reporting_usage_errors(  # type: ignore[method-assign,assignment]
        argv, certify.error)

    command = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in PLUGGED.items():
        if available(module_name):
            _plug(sub, name, module_name, help_text, wanted=name == command)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "subagent-tck") -> int:
    """Run the command line; returns the exit code (see :class:`~.exitcode.ExitCode`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv, prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed the usage error (or --help)
        return int(exc.code) if isinstance(exc.code, int) else ExitCode.USAGE
    try:
        busypoll.window()  # a bad SUBAGENT_TCK_POLL_US is a usage error before anything starts
        return int(args.run(args))
    except TckError as exc:
        return report_error(exc)


if __name__ == "__main__":
    sys.exit(main())
