"""The terminal report: a progress bar while running, then verdicts and failures.

The progress bar goes to stderr and is off when stderr is not a terminal or ``CI=true``. The
summary is plain text that reads well in a CI log: a table per provider with its capability
verdicts, then every failure with rule id, title, message, expected, observed and the command
that replays it (docs/architecture.md).

Everything printed goes through :func:`_line` or :func:`_cell`, the boundary of this format:
control and escape characters a target put in its names and messages are shown escaped, and
no untrusted text is parsed as Rich markup (docs/certify.md#outputs).
"""

from __future__ import annotations

import io
import os
from collections import Counter
from collections.abc import Sequence
from typing import IO, Any

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ..core.certificate import (
    Certificate,
    CheckTiming,
    RuleResult,
    Timings,
    Verdict,
    portable_note,
)
from ..core.drawn import summary
from ..core.exitcode import ExitCode, for_certificate
from ..core.outcome import Failure, Outcome
from ..core.untrusted import for_rich_markup, for_terminal
from ..engine.events import CheckFinished, CheckStarted, Event, RunFinished, RunStarted
from ..engine.seed import run_replay
from .report_failure import failure_lines, traceback_lines

#: Failures printed per rule; the JSON certificate has them all.
MAX_FAILURES_SHOWN = 3
#: Check runs and target operations ``--timings`` lists, slowest first; the JSON has them all.
MAX_SLOWEST = 10
#: Characters of a baseline reason the summary line shows (DSH's run hundreds of words each:
#: the baseline file and the JSON and Markdown reports have them whole).
REASON_SHOWN = 160


def progress_wanted(stream: IO[str]) -> bool:
    """Show a progress bar only on an interactive terminal outside CI."""
    if os.environ.get("CI", "").lower() in ("true", "1"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


class ProgressReporter:
    """A handler drawing a transient progress bar (on stderr by default)."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._progress: Progress | None = None
        self._task: Any = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self._progress = Progress(
                TextColumn("[bold]certify[/bold] {task.description}"), BarColumn(),
                MofNCompleteColumn(), TimeElapsedColumn(), console=self.console, transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(for_rich_markup(event.info.name),
                                                 total=len(event.plan))
        elif isinstance(event, CheckStarted) and self._progress is not None:
            self._progress.update(self._task, description=for_rich_markup(event.planned.label))
        elif isinstance(event, CheckFinished) and self._progress is not None:
            self._progress.advance(self._task)
        elif isinstance(event, RunFinished) and self._progress is not None:
            self._progress.stop()
            self._progress = None


def _line(console: Console, text: Text) -> None:
    """Print one logical line unwrapped, so that commands stay copyable from a log; its
    control characters shown escaped."""
    console.print(_cell(text.plain, text.style), soft_wrap=True)


def _cell(text: str, style: str | Any = "") -> Text:
    """Untrusted text as a terminal-safe, markup-free Rich ``Text``."""
    return Text(for_terminal(text), style=style)


def _provider_table(cert: Certificate, provider: str) -> Table:
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
    table.add_column("capability")
    table.add_column("verdict")
    table.add_column("blocking rules", overflow="fold")
    for v in cert.verdicts:
        if v.provider != provider:
            continue
        name = v.capability.value if v.capability is not None else "core rules"
        style = ("bold red" if v.verdict == Verdict.FAILED
                 else "green" if v.verdict in (Verdict.CERTIFIED, Verdict.PASSED) else "")
        table.add_row(name, Text(v.verdict.value, style=style), _cell(", ".join(v.blocking)))
    return table


def shown_failures(failures: Sequence[Failure], limit: int = MAX_FAILURES_SHOWN) -> list[Failure]:
    """At most ``limit`` of ``failures``, in their order, each check's first before any check's
    second: a rule one check failed for every provider still shows what another check found
    (the fuzz campaign's shrunk steps and replay file)."""
    seen: Counter[str] = Counter()
    rank = []
    for index, failure in enumerate(failures):
        rank.append((seen[failure.check], index))
        seen[failure.check] += 1
    return [failures[index] for _, index in sorted(sorted(rank)[:limit], key=lambda r: r[1])]


def _failure_block(console: Console, result: RuleResult, shown: dict[str, str]) -> None:
    where = ", ".join(p.provider or "target" for p in result.providers
                      if p.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.UNEXPECTED_PASS))
    _line(console, Text(f"{result.title}  [{result.outcome.value}] {result.level.value}  "
                       f"({where})", style="bold"))
    for failure in shown_failures(result.failures):
        for text in failure_lines(failure):
            style = "cyan" if text.lstrip().startswith("replay this failure:") else ""
            _line(console, Text(text, style=style))
        if failure.traceback and failure.traceback in shown:
            _line(console, Text(f"    traceback: as shown under {shown[failure.traceback]}"))
        elif failure.traceback:
            shown[failure.traceback] = result.id
            _line(console, Text("    traceback:"))
            for text in traceback_lines(failure, "      "):
                _line(console, Text(text))
    more = len(result.failures) - MAX_FAILURES_SHOWN
    if more > 0:
        _line(console, Text(f"  … {more} more failure(s): see the JSON certificate"))
    if result.replay:
        _line(console, Text(f"  replay: {result.replay}", style="cyan"))
    console.print()


def write_text(cert: Certificate, console: Console) -> None:
    """Print the summary of ``cert`` on ``console``."""
    info = cert.target.info
    name = f"{info.name} {info.version}".strip()
    _line(console, Text(f"subagent-tck {cert.kit_version}: {cert.target.spec} ({name})",
                       style="bold"))
    _line(console, Text(
        f"edition {cert.edition.value}, profile {cert.profile}, seed {cert.seed}, catalogue "
        f"{cert.catalogue_hash}, {len(cert.checks)} check runs in {cert.duration:.2f} s"))
    _line(console, Text(f"replay this run: {run_replay(cert)}"))
    if cert.selected_rules is not None:
        _line(console, Text(f"partial run: --rule {' '.join(cert.selected_rules)}; rules not "
                           "selected are not-run, and a partial run never certifies"))
    if cert.baseline:
        _line(console, Text(f"baseline: {cert.baseline}"))
    if cert.target_tools:
        _line(console, Text("the target's own global tools (left out of what is judged, never "
                           f"called): {', '.join(cert.target_tools)}"))
    if cert.portable_variables:
        _line(console, Text(f"variable names: {portable_note()}"))
    if cert.jobs is not None:
        jobs = cert.jobs
        _line(console, Text(f"jobs: {jobs.used} check run{'' if jobs.used == 1 else 's'} at "
                            f"once (--jobs {jobs.asked})"
                            + (f": {jobs.why}" if jobs.why else ""),
                            style="bold" if jobs.why else ""))
    if cert.stopped_early:
        _line(console, Text(f"stopped early: {cert.stopped_early}", style="bold"))
    for line in cert.dialect.lines():  # the target's text (via, frame): escaped by _line
        _line(console, Text(f"dialect: {line}"))
    console.print()
    for provider, capabilities in cert.capabilities.items():
        advertised = " ".join(c.value for c in capabilities) or "no controls"
        _line(console, Text(f"provider {provider} (advertises {advertised})", style="bold"))
        console.print(_provider_table(cert, provider))
        console.print()
    counts = ", ".join(f"{n} {o}" for o, n in cert.counts.items() if n)
    _line(console, Text(f"rules: {counts}"))
    drawn = summary((r.id, r.partitions) for r in cert.rules)
    if drawn:
        _line(console, Text(drawn))
    for run in cert.checks:
        if run.note:
            _line(console, Text(f"{run.check}: {run.note}"))
    failing = cert.failing()
    not_run = [r for r in cert.rules if r.outcome == Outcome.NOT_RUN
               and r.level.value == "MUST" and cert.selected_rules is None]
    expected = [r for r in cert.rules if r.outcome == Outcome.EXPECTED_FAIL]
    if expected:  # each reason cut short: the baseline and the reports have them whole
        _line(console, Text("expected-fail (baseline): " + ", ".join(
            f"{r.id} ({r.reasons(Outcome.EXPECTED_FAIL, limit=REASON_SHOWN)})"
            for r in expected)))
    if cert.baseline_summary is not None:
        from .report_baseline import excused_by_rule, headline, items

        judged = cert.baseline_summary
        _line(console, Text(headline(judged), style="" if judged.holds else "bold red"))
        if judged.excused or judged.whole_rule:
            _line(console, Text(f"  excused: {excused_by_rule(judged)}"))
        for kind, text in items(judged):
            _line(console, Text(f"  {kind}: {text}", style="" if kind == "unseen" else "red"))
    unsupported = cert.inexpressible_summary()
    if unsupported:
        _line(console, Text(unsupported))
    if not_run:
        _line(console, Text("not run (a MUST that did not run certifies nothing): " + ", ".join(
            f"{r.id} ({r.reasons(Outcome.NOT_RUN)})" for r in not_run)))
    console.print()
    if failing:
        _line(console, Text(f"{len(failing)} failing rule(s)", style="bold red"))
        console.print()
        shown: dict[str, str] = {}  # a traceback printed once, then referred to
        for result in failing:
            _failure_block(console, result, shown)
    if cert.promises is not None:
        from .report_promises import text_lines

        style = "green" if cert.promises.kept else "bold red"
        for number, text in enumerate(text_lines(cert.promises)):
            _line(console, Text(text, style=style if number == 0 else ""))
        console.print()
    if cert.timings is not None:
        _timings_block(console, cert.timings)
    code = for_certificate(cert)
    style = "bold green" if cert.succeeded else "bold red"
    partial = ""
    if cert.selected_rules is not None:
        partial = (f"; partial run of {len(cert.selected_rules)} selected rule(s), "
                   "not a certificate")
    because = "" if cert.succeeded else f": {why(cert)}"
    if cert.succeeded and cert.uncertified():
        because = ("; nothing certified (every rule not applicable) for "
                   + ", ".join(cert.uncertified()))
    _line(console, Text(f"verdict: {cert.verdict.value} (exit {int(code)}){because}{partial}",
                       style=style))


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _check_label(entry: CheckTiming) -> str:
    """A check run's label, escaped before it becomes a ``Text`` (which would drop BEL and CR
    rather than show them)."""
    label = f"{entry.check} [{entry.provider}]" if entry.provider is not None else entry.check
    return for_terminal(label)


def _timings_block(console: Console, timings: Timings) -> None:
    """``--timings``: the slowest check runs and target operations, each with its unit
    (docs/certify.md#timings); labels carry target-supplied names, escaped by :func:`_line`."""
    runs = [*timings.checks, *timings.campaigns]
    before = timings.before_checks
    in_target = sum(r.operation_seconds for r in runs)
    calls = sum(r.operations for r in runs)
    _line(console, Text("timings (wall-clock seconds, --timings): before the first check "
                       f"{before.seconds:.3f} s; {_many(len(runs), 'check run')} "
                       f"{sum(r.seconds for r in runs):.3f} s, of which {in_target:.3f} s in "
                       f"{_many(calls, 'target operation')}", style="bold"))
    slowest = sorted(runs, key=lambda r: -r.seconds)[:MAX_SLOWEST]
    if slowest:
        _line(console, Text(f"slowest {len(slowest)} check runs (seconds):"))
    for run in slowest:
        _line(console, Text(f"  {run.seconds:9.3f} s  {_check_label(run)}  ("
                           f"{_many(run.deployments, 'deployment')}, "
                           f"{_many(run.operations, 'target operation')} taking "
                           f"{run.operation_seconds:.3f} s)"))
    operations = sorted(timings.operations, key=lambda o: -o.seconds)[:MAX_SLOWEST]
    if operations:
        _line(console, Text(f"slowest {len(operations)} target operations (seconds over every "
                           "call):"))
    for operation in operations:
        name = for_terminal(operation.operation)
        _line(console, Text(f"  {operation.seconds:9.3f} s  {name}  "
                           f"({_many(operation.count, 'call')}, longest "
                           f"{operation.max_seconds:.3f} s)"))
    console.print()


def why(cert: Certificate) -> str:
    """What the exit code means for this run, in words that say who failed."""
    code = for_certificate(cert)
    if code == ExitCode.INTERRUPTED:
        return "interrupted by Ctrl-C"
    if code == ExitCode.CERTIFIED:
        return "every selected rule passed" if cert.selected_rules is not None else "certified"
    if code == ExitCode.TARGET_BROKEN:
        if cert.stopped_early and not any(
                f.error and "deadline" not in f.message for r in cert.rules for f in r.failures):
            return cert.stopped_early
        return "errors only: the target crashed, hung, or broke the connection or the protocol"
    if cert.verdict == Verdict.NOT_RUN and cert.selected_rules is None:
        return ("nothing certified: no rule was judged (every rule that applies is not "
                "applicable here)")
    if cert.verdict == Verdict.NOT_RUN:
        return "none of the selected rules applies, so nothing was judged"
    promised = cert.promises is not None and not cert.promises.kept
    if promised and not any(v.verdict == Verdict.FAILED for v in cert.verdicts):
        return "a promise was not kept: see the promises above"
    if promised:
        return "a capability failed (see its blocking rules) and a promise was not kept"
    return "a capability failed: see its blocking rules"


def render(cert: Certificate, width: int = 100) -> str:
    """The summary as plain text (no colour), e.g. for ``--output report.txt``."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    write_text(cert, console)
    return buffer.getvalue()


class TextReporter:
    """A handler printing the summary when the run finishes."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console()

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            write_text(event.certificate, self.console)
