"""The terminal report: a progress bar while running, then verdicts and failures.

The progress bar goes to stderr and is off when stderr is not a terminal or ``CI=true``. The
summary is plain text that reads well in a CI log: a table per provider with its capability
verdicts, then every failure with rule id, title, message, expected, observed and the command
that replays it (DESIGN.md, "Results and verdicts").
"""

from __future__ import annotations

import io
import json
import os
from typing import IO, Any

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from .certificate import Certificate, RuleResult, Verdict
from .exitcode import for_certificate
from .outcome import Outcome
from .runner import CheckFinished, CheckStarted, Event, RunFinished, RunStarted
from .seed import run_replay

#: Failures printed per rule; the JSON certificate has them all.
MAX_FAILURES_SHOWN = 3
MAX_VALUE_CHARS = 600


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
            self._task = self._progress.add_task(event.info.name, total=len(event.plan))
        elif isinstance(event, CheckStarted) and self._progress is not None:
            self._progress.update(self._task, description=event.planned.label)
        elif isinstance(event, CheckFinished) and self._progress is not None:
            self._progress.advance(self._task)
        elif isinstance(event, RunFinished) and self._progress is not None:
            self._progress.stop()
            self._progress = None


def _line(console: Console, text: Text) -> None:
    """Print one logical line unwrapped, so that commands stay copyable from a log."""
    console.print(text, soft_wrap=True)


def _value(value: Any) -> str:
    plain = isinstance(value, str) and "\n" not in value  # keep one value on one log line
    out = value if plain else json.dumps(value, sort_keys=True, default=str)
    return out if len(out) <= MAX_VALUE_CHARS else out[:MAX_VALUE_CHARS] + " …"


def _provider_table(cert: Certificate, provider: str) -> Table:
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
    table.add_column("capability")
    table.add_column("verdict")
    table.add_column("blocking rules", overflow="fold")
    for v in cert.verdicts:
        if v.provider != provider:
            continue
        name = v.capability.value if v.capability is not None else "core rules"
        style = "green" if v.verdict == Verdict.CERTIFIED else "bold red"
        table.add_row(name, Text(v.verdict.value, style=style), ", ".join(v.blocking))
    return table


def _failure_block(console: Console, result: RuleResult) -> None:
    where = ", ".join(p.provider or "target" for p in result.providers
                      if p.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.UNEXPECTED_PASS))
    _line(console, Text(f"{result.title}  [{result.outcome.value}] {result.level.value}  "
                       f"({where})", style="bold"))
    for failure in result.failures[:MAX_FAILURES_SHOWN]:
        prefix = f"[{failure.provider}] " if failure.provider else ""
        _line(console, Text(f"  {prefix}{failure.message}"))
        if failure.expected is not None:
            _line(console, Text(f"    expected: {_value(failure.expected)}"))
        if failure.observed is not None:
            _line(console, Text(f"    observed: {_value(failure.observed)}"))
        if failure.example and "\n" in failure.example:  # a sequence: one step per line
            _line(console, Text("    example:"))
            for example_line in failure.example.splitlines():
                _line(console, Text(f"      {example_line}"))
        elif failure.example:
            _line(console, Text(f"    example:  {_value(failure.example)}"))
        if failure.replay:
            _line(console, Text(f"    replay this failure: {failure.replay}", style="cyan"))
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
    console.print()
    for provider, capabilities in cert.capabilities.items():
        advertised = " ".join(c.value for c in capabilities) or "no controls"
        _line(console, Text(f"provider {provider} (advertises {advertised})", style="bold"))
        console.print(_provider_table(cert, provider))
        console.print()
    counts = ", ".join(f"{n} {o}" for o, n in cert.counts.items() if n)
    _line(console, Text(f"rules: {counts}"))
    for run in cert.checks:
        if run.note:
            _line(console, Text(f"{run.check}: {run.note}"))
    failing = cert.failing()
    not_run = [r for r in cert.rules if r.outcome == Outcome.NOT_RUN
               and r.level.value == "MUST" and cert.selected_rules is None]
    expected = [r for r in cert.rules if r.outcome == Outcome.EXPECTED_FAIL]
    if expected:
        _line(console, Text("expected-fail (baseline): " + ", ".join(
            f"{r.id} ({r.reasons(Outcome.EXPECTED_FAIL)})" for r in expected)))
    if not_run:
        _line(console, Text("not run (a MUST that did not run certifies nothing): " + ", ".join(
            f"{r.id} ({r.reasons(Outcome.NOT_RUN)})" for r in not_run)))
    console.print()
    if failing:
        _line(console, Text(f"{len(failing)} failing rule(s)", style="bold red"))
        console.print()
        for result in failing:
            _failure_block(console, result)
    code = for_certificate(cert)
    style = "bold green" if cert.succeeded else "bold red"
    partial = ""
    if cert.selected_rules is not None:
        partial = (f"; partial run of {len(cert.selected_rules)} selected rule(s), "
                   "not a certificate")
    _line(console, Text(f"verdict: {cert.verdict.value} (exit {int(code)}){partial}",
                       style=style))


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
