"""The fuzz campaign as a test HypoFuzz collects: one worker's side (docs/fuzz.md#hypofuzz).

HypoFuzz (Hypothesis's fuzzing engine) runs Hypothesis tests that pytest collects, in worker
processes that share one example database. Importing this module builds the campaign's state
machine (:mod:`.machine`) for the target the environment names and exposes its test as
``TestFuzzCampaign``; :mod:`.hypofuzz_run` starts HypoFuzz on it (``subagent-tck fuzz --engine
hypofuzz``), and a user may run HypoFuzz on it by hand for its dashboard::

    echo 'from subagent_tck.fuzz.hypofuzz_target import TestFuzzCampaign' > test_campaign.py
    SUBAGENT_TCK_FUZZ_TARGET=reference hypothesis fuzz -n 2 -- test_campaign.py

The environment: ``SUBAGENT_TCK_FUZZ_TARGET`` (the TARGET, required),
``SUBAGENT_TCK_FUZZ_DATABASE`` (a directory or ``redis://...``; default
``.subagent-tck/fuzz-db``), ``SUBAGENT_TCK_FUZZ_EDITIONS`` (comma-separated; default every
edition the target lists), ``SUBAGENT_TCK_FUZZ_STEPS`` (operations per example, default 60) and
``SUBAGENT_TCK_FUZZ_RUN`` (a directory where the worker reports what it ran, once a second, as
``worker-PID.json``; :mod:`.hypofuzz_run` reads it). Each worker process loads its own target
(a ``cmd:`` target: its own adapter), so workers never share a connection.

A failure HypoFuzz finds is saved under the key the in-process campaign uses too
(:func:`.machine.database_key`), so any campaign sharing the database replays it first. A target
that breaks (unreachable, protocol broken, timed out) is no failure to shrink: the worker
reports the error and exits at once (:attr:`.machine.FuzzMachine.fatal`).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import threading
import time
from pathlib import Path
from typing import Any, NoReturn

from hypothesis import HealthCheck, settings

from subagent_tck.spec import Edition, ErrorCode, TckError

from .campaign import replay_file
from .database import DEFAULT_DATABASE, DIVERGENCE_SUFFIX, open_database
from .hypofuzz_hub import (
    DATABASE_VARIABLE,
    EDITIONS_VARIABLE,
    RUN_VARIABLE,
    STEPS_VARIABLE,
    TARGET_VARIABLE,
)
from .machine import BURST, FuzzMachine, database_key, machine_for
from .machine_base import Stats
from .step import Divergence

#: Seconds between two reports of a worker.
REPORT_INTERVAL = 0.5
#: The exit status of a worker stopped by its target's error.
FATAL_STATUS = 3
PROFILE = "subagent-tck-hypofuzz"


class Reporter:
    """Writes what this worker ran to ``RUN/worker-PID.json`` (atomically), every half second
    from a thread of its own, so that a worker stuck in an operation still reports (its
    ``progress`` time stops moving)."""

    def __init__(self, directory: str | None, stats: Stats, key: bytes) -> None:
        self.path = (Path(directory) / f"worker-{os.getpid()}.json") if directory else None
        self.stats = stats
        self.key = key.hex()
        self.started = time.time()
        self.progress = self.started
        self._applied = -1
        self._lock = threading.Lock()

    def start(self) -> None:
        if self.path is None:
            return
        self.write()
        threading.Thread(target=self._loop, name="subagent-tck worker report",
                         daemon=True).start()

    def _loop(self) -> None:
        while True:
            time.sleep(REPORT_INTERVAL)
            with contextlib.suppress(OSError):
                self.write()

    def write(self, error: str | None = None) -> None:
        if self.path is None:
            return
        stats = self.stats
        with self._lock:
            now = time.time()
            if stats.applied != self._applied:
                self._applied, self.progress = stats.applied, now
            body: dict[str, Any] = {
                "pid": os.getpid(), "key": self.key, "examples": stats.examples,
                "steps": stats.steps, "applied": stats.applied,
                "operations": dict(stats.operations),
                "first_divergence": stats.first_divergence, "started": self.started,
                "updated": now, "progress": self.progress, "error": error,
            }
            partial = self.path.with_suffix(".part")
            partial.write_text(json.dumps(body), encoding="utf-8")
            partial.replace(self.path)

    def fatal(self, error: TckError) -> NoReturn:
        """The target broke: report it and stop this worker (no failure for HypoFuzz)."""
        with contextlib.suppress(OSError):
            self.write(f"{error.code.value}: {error.message}")
        os._exit(FATAL_STATUS)


def _editions(text: str) -> tuple[Edition, ...]:
    try:
        return tuple(Edition(part.strip()) for part in text.split(",") if part.strip())
    except ValueError:
        raise TckError(ErrorCode.USAGE, f"{EDITIONS_VARIABLE}={text!r} names an unknown "
                       f"edition: use {', '.join(e.value for e in Edition)}") from None


def build() -> tuple[type[FuzzMachine], Reporter]:
    """The campaign's machine for the environment's target, bound to its database, and the
    worker's reporter (started)."""
    from subagent_tck.conformance.transports.targets import load_target

    spec = os.environ.get(TARGET_VARIABLE)
    if not spec:
        raise TckError(ErrorCode.USAGE, f"set {TARGET_VARIABLE} to the TARGET to fuzz "
                       "(docs/fuzz.md#hypofuzz)")
    run = os.environ.get(RUN_VARIABLE) or None
    stats = Stats()
    reporter = Reporter(run, stats, b"")
    try:
        target = load_target(spec)
        info = target.info()
        editions = _editions(os.environ.get(EDITIONS_VARIABLE, ""))
        unsupported = [e.value for e in editions if e not in info.editions]
        if unsupported:
            raise TckError(ErrorCode.USAGE, f"the target does not support edition "
                           f"{', '.join(unsupported)}")
        machine = machine_for(target, info, editions)
        database = open_database(os.environ.get(DATABASE_VARIABLE) or DEFAULT_DATABASE, spec)
    except TckError as exc:
        if run:
            reporter.fatal(exc)
        raise
    machine.stats = stats
    machine.fatal = reporter.fatal if run else None
    # HypoFuzz fuzzes only tests whose database is the default profile's, skips tests that
    # suppress the nested-given health check, and skips derandomized ones: the profile rests on
    # Hypothesis's own defaults, not on the profile in force, which is Hypothesis's `ci` profile
    # (derandomize=True, no database) wherever a CI variable is set, as in the user's CI
    settings.register_profile(
        PROFILE, settings.get_profile("default"), database=database, derandomize=False,
        deadline=None,
        suppress_health_check=[h for h in HealthCheck if h is not HealthCheck.nested_given])
    settings.load_profile(PROFILE)
    steps = int(os.environ.get(STEPS_VARIABLE) or 60)
    machine.TestCase.settings = settings(stateful_step_count=max(1, steps // BURST))
    key = database_key(machine)
    reporter.key = key.hex()

    def found(divergence: Divergence) -> None:
        # the steps, as data: any campaign replays them, whatever its process or machine
        assert database is not None
        record = replay_file(divergence, spec, None).model_dump_json()
        with contextlib.suppress(Exception):  # the database is gone: the report says so
            database.save(key + DIVERGENCE_SUFFIX, record.encode())
        with contextlib.suppress(OSError):
            reporter.write()

    machine.found = found
    reporter.start()
    return machine, reporter


if multiprocessing.get_start_method(allow_none=True) is None:
    # each worker a fresh interpreter that loads its own target (a forked worker would share
    # the hub's adapter and its connections)
    multiprocessing.set_start_method("spawn")

Machine, REPORTER = build()
TestFuzzCampaign = Machine.TestCase
