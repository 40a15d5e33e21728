"""``subagent-tck fuzz --engine hypofuzz``: the campaign under HypoFuzz, across worker processes
that share one example database, on this machine and any other (docs/fuzz.md#hypofuzz).

:func:`run_hypofuzz` starts HypoFuzz's hub (:mod:`.hypofuzz_hub`) as a process family of its
own, with a watchdog (the launcher of ``cmd:`` targets: nothing stays running on any path, the
kit killed outright included). Each worker loads its own target and reports what it ran once a
second (:mod:`.hypofuzz_target`); this process watches those reports and the shared database
and stops the family when:

- the budget is spent (no divergence);
- a worker found a divergence, or the database holds one under the campaign's key (a worker
  on another machine found it): its choices are copied here at once, the family is stopped,
  and the divergence is replayed in this process from the copy, shrunk by the campaign's own
  shrinker (:mod:`.shrink`) and saved as the usual replay file with its replay line;
- a worker reported an error of its target (unreachable, broken, timed out), a worker died, a
  worker made no progress for ``stall_seconds`` (a deployment that hangs without a timeout of
  its own), no worker started, the hub exited, or the database stopped answering: the result's
  ``error`` says which, and keeps what was run and found until then.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from subagent_tck.conformance.transports.launcher import AdapterProcess
from subagent_tck.conformance.transports.processes import running
from subagent_tck.spec import Edition, ErrorCode, TckError

from . import hypofuzz_hub
from .campaign import DEFAULT_OUTPUT, PROFILES, CampaignResult, Progress, settle
from .database import (
    DIVERGENCE_SUFFIX,
    DatabaseGone,
    KeyedDatabase,
    guarded,
    key_prefix,
    parse_database,
)
from .replay import ReplayFile, replay_steps
from .rulemap import rules_compared

#: Seconds between two looks at the workers' reports.
POLL = 0.25
#: Seconds between two looks at the shared database.
DATABASE_POLL = 1.0
#: How long a worker may go without applying a step before it counts as hung.
STALL_SECONDS = 120.0
#: How long the workers may take to load their targets and report.
STARTUP_SECONDS = 120.0
#: How long to wait, after a worker saw a divergence, for HypoFuzz to save it.
SAVE_SECONDS = 15.0
#: Seconds a stopped worker gets before SIGKILL.
GRACE = 3.0


@dataclass(frozen=True)
class WorkerReport:
    """What one worker reported last (``worker-PID.json``, :class:`.hypofuzz_target.Reporter`)."""

    pid: int
    key: str
    examples: int
    steps: int
    operations: dict[str, int]
    first_divergence: list[float] | None
    started: float
    updated: float
    progress: float
    error: str | None

    @property
    def rate(self) -> float:
        """Steps per second of this worker since it started."""
        return self.steps / max(self.updated - self.started, 1e-9)


def read_reports(run: Path) -> list[WorkerReport]:
    reports = []
    for path in sorted(run.glob("worker-*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            reports.append(WorkerReport(
                pid=int(data["pid"]), key=str(data["key"]), examples=int(data["examples"]),
                steps=int(data["steps"]), operations=dict(data["operations"]),
                first_divergence=data["first_divergence"], started=float(data["started"]),
                updated=float(data["updated"]), progress=float(data["progress"]),
                error=data["error"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being replaced: read it next time
    return reports


def _alive(report: WorkerReport) -> bool:
    try:
        process = psutil.Process(report.pid)
        return running(process) and process.create_time() <= report.started + 1.0
    except psutil.Error:
        return False


class _Watch:
    """One campaign's workers, database and clock."""

    def __init__(self, run: Path, spec: str, database: str, workers: int, budget: float,
                 stall: float, say: Progress) -> None:
        self._run = run
        self.spec, self.database_text, self.workers = spec, database, workers
        self.budget, self.stall, self.say = budget, stall, say
        self.shared = KeyedDatabase(parse_database(database), key_prefix(spec))
        self.found: dict[bytes, set[bytes]] = {}  # key -> failing choices, copied here
        self.began = time.monotonic()
        self.error: str | None = None
        self.reports: list[WorkerReport] = []
        self._polled = 0.0
        self._seen_at: float | None = None  # when a worker said it diverged

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def poll_database(self) -> None:
        """Copy every divergence a worker saved under the campaign's key (its steps, as a
        replay file's JSON), whichever machine it runs on."""
        self._polled = time.monotonic()
        keys = {bytes.fromhex(r.key) for r in self.reports if r.key}
        if not keys:  # no worker has said its key yet: is the database still there?
            guarded(lambda: list(self.shared.fetch(DIVERGENCE_SUFFIX)),
                    self.database_text)
        for key in keys:
            name = key + DIVERGENCE_SUFFIX
            values = guarded(lambda n=name: list(self.shared.fetch(n)),  # type: ignore[misc]
                             self.database_text)
            if values:
                self.found.setdefault(key, set()).update(values)

    def done(self, hub: AdapterProcess) -> bool:
        """One look; True when the campaign must stop (``error`` says why, if not by budget
        or finding)."""
        self.reports = read_reports(self._run)
        now = time.time()
        for report in self.reports:
            if report.error:
                self.error = f"worker pid {report.pid} stopped: {report.error}"
                return True
        try:
            if time.monotonic() - self._polled >= DATABASE_POLL or self._seen_at is not None:
                self.poll_database()
        except DatabaseGone as exc:
            self.error = f"{exc} after {self.elapsed():.0f} s"
            return True
        if self.found:
            return True
        if any(r.first_divergence for r in self.reports):
            self._seen_at = self._seen_at or time.monotonic()
            if time.monotonic() - self._seen_at > SAVE_SECONDS:
                self.error = ("a worker saw a divergence, but its steps did not reach the "
                              f"database within {SAVE_SECONDS:g} s")
                return True
            return False
        if hub.process.poll() is not None:
            self.error = f"the HypoFuzz hub exited ({hub.describe() or 'no output'})"
            return True
        for report in self.reports:
            if not _alive(report):
                self.error = (f"worker pid {report.pid} died after {now - report.started:.0f} s "
                              f"(killed or crashed; it had run {report.examples} examples)"
                              + self._hub_said(hub))
                return True
            if now - report.progress > self.stall:
                self.error = (f"worker pid {report.pid} made no progress for "
                              f"{now - report.progress:.0f} s (a deployment that hangs?); "
                              f"--stall-timeout is {self.stall:g} s")
                return True
        if len(self.reports) < self.workers and self.elapsed() > STARTUP_SECONDS:
            self.error = (f"{len(self.reports)} of {self.workers} HypoFuzz workers started "
                          f"within {STARTUP_SECONDS:g} s" + self._hub_said(hub))
            return True
        return self.elapsed() >= self.budget

    @staticmethod
    def _hub_said(hub: AdapterProcess) -> str:
        parts = [hub.describe() or ""]
        # a worker that collected no test says why on stdout (HypoFuzz's collection report)
        out = " | ".join(line for line in hub.stdout_tail if line.strip())
        if out:
            parts.append(f"its stdout ended with: {out[-600:]}")
        return "".join(f"; {part}" for part in parts if part)


def run_hypofuzz(
    target_spec: str,
    *,
    workers: int = 2,
    budget_seconds: float | None = None,
    profile: str = "ci",
    database: str | os.PathLike[str] = "",
    editions: Sequence[Edition] = (),
    steps_per_example: int | None = None,
    output_dir: str | os.PathLike[str] | None = DEFAULT_OUTPUT,
    progress: Progress | None = None,
    stall_seconds: float = STALL_SECONDS,
) -> CampaignResult:
    """Fuzz the target ``target_spec`` names with HypoFuzz's ``workers`` processes sharing
    ``database`` (a directory or ``redis://...``) for ``budget_seconds`` (None: the profile's),
    or until a divergence is found anywhere: then it is replayed here, shrunk and saved."""
    if importlib.util.find_spec("hypofuzz") is None:
        raise TckError(ErrorCode.USAGE, "--engine hypofuzz needs HypoFuzz: pip install "
                       "'subagent-tck[hypofuzz]' (docs/fuzz.md#hypofuzz)")
    if workers < 1:
        raise TckError(ErrorCode.USAGE, f"--workers must be at least 1, got {workers}")
    if not os.fspath(database):
        raise TckError(ErrorCode.USAGE, "HypoFuzz's workers share what they find through the "
                       "example database: give --database DIR or redis://HOST:PORT/DB")
    chosen = PROFILES[profile]
    budget = chosen.budget_seconds if budget_seconds is None else budget_seconds
    say = progress or (lambda line: None)
    steps = steps_per_example or chosen.steps_per_example
    run = Path(tempfile.mkdtemp(prefix="subagent-tck-hypofuzz-"))
    try:
        watch = _Watch(run, target_spec, os.fspath(database), workers, budget, stall_seconds,
                       say)
    except BaseException:
        shutil.rmtree(run, ignore_errors=True)
        raise
    hypofuzz_hub.prepare(run)
    environment = {
        **os.environ, hypofuzz_hub.TARGET_VARIABLE: target_spec,
        hypofuzz_hub.DATABASE_VARIABLE: os.fspath(database), hypofuzz_hub.RUN_VARIABLE: str(run),
        hypofuzz_hub.EDITIONS_VARIABLE: ",".join(e.value for e in editions),
        hypofuzz_hub.STEPS_VARIABLE: str(steps),
    }
    say(f"fuzz: HypoFuzz, {workers} worker(s), target {target_spec}, database "
        f"{os.fspath(database)}, budget {budget:.0f}s")
    result = CampaignResult(target=target_spec, profile="hypofuzz", workers=workers)
    hub = AdapterProcess([sys.executable, "-m", "subagent_tck.fuzz.hypofuzz_hub", str(workers),
                          str(run)], grace=GRACE, env=environment)
    try:
        last = 0.0
        while not watch.done(hub):
            time.sleep(POLL)
            if watch.elapsed() - last >= 5.0:
                last = watch.elapsed()
                steps = sum(r.steps for r in watch.reports)
                say(f"fuzz: {last:.0f}s, {len(watch.reports)} worker(s), {steps} steps "
                    f"({sum(r.rate for r in watch.reports):.0f} steps/s), no divergence yet")
    finally:
        hub.stop()
        watch.reports = read_reports(run) or watch.reports
        shutil.rmtree(run, ignore_errors=True)
    _tally(result, watch)
    if watch.error is None and any(r.first_divergence for r in watch.reports):
        try:  # the divergence was saved as the family stopped
            watch.poll_database()
        except DatabaseGone as exc:
            watch.error = str(exc)
    if watch.found:
        _replay_found(result, watch, chosen.shrink_seconds, output_dir, say)
    if watch.error is not None and result.error is None:
        result.error = watch.error + _kept(result)
    say(f"fuzz: done: {result.report().splitlines()[0]}")
    return result


def _tally(result: CampaignResult, watch: _Watch) -> None:
    reports = watch.reports
    operations: Counter[str] = Counter()
    for report in reports:
        operations.update(report.operations)
    result.examples = sum(r.examples for r in reports)
    result.steps = sum(r.steps for r in reports)
    result.seconds = watch.elapsed()
    # each worker's own rate, summed: a worker that started late does not dilute the others
    result.steps_per_second = sum(r.rate for r in reports)
    result.operations = dict(sorted(operations.items()))
    result.rules_exercised = rules_compared(result.operations)


def _kept(result: CampaignResult) -> str:
    return (f"; kept what ran until then: {result.examples} examples, {result.steps} steps"
            + (f", the divergence replayed above ({result.replay_path})" if result.replay_path
               else ""))


def _replay_found(result: CampaignResult, watch: _Watch, shrink_seconds: float,
                  output_dir: str | os.PathLike[str] | None, say: Progress) -> None:
    """Replay the divergences the workers saved (their steps, copied here: the shared
    database may be gone), the shortest first, and settle the first that shows again as the
    in-process campaign does (shrunk, saved as a replay file)."""
    from subagent_tck.conformance.transports.targets import load_target

    records = sorted((ReplayFile.model_validate_json(value) for values in watch.found.values()
                      for value in values), key=lambda r: len(r.steps))
    say(f"fuzz: replaying the steps of {len(records)} divergence(s) the workers saved")
    target = load_target(watch.spec)
    try:
        info = target.info()
        for record in records:
            divergence, _ = replay_steps(target, record)
            if divergence is not None:
                settle(result, target, divergence, shrink_seconds, output_dir, watch.spec, info,
                       say)
                result.first_divergence = _first(watch)
                return
        result.error = ("the steps of a worker's divergence showed none when replayed here: "
                        "the target answers the same steps differently (first: "
                        f"{records[0].finding.rule or 'crash'}: {records[0].finding.message})")
    except TckError as exc:
        result.error = f"{exc.code.value}: {exc.message}"
    finally:
        target.close()


def _first(watch: _Watch) -> tuple[int, float] | None:
    seen = [r.first_divergence for r in watch.reports if r.first_divergence]
    if not seen:
        return None
    steps, seconds = min(seen, key=lambda pair: pair[1])
    return int(steps), float(seconds)


__all__ = ["STALL_SECONDS", "WorkerReport", "read_reports", "run_hypofuzz"]
