"""The runner: one certification from start to end (docs/architecture.md#rooms).

It checks the run's configuration, asks the target what it is and what it brings, plans
(:mod:`.planning`: what applies to whom), runs the plan (:mod:`.scheduling`), and assembles the
certificate from the evidence (:mod:`.verdicts`), handing :mod:`.events` to handlers on the way.
Its public names (``certify``, ``RunConfig``, ``Suite``, ``plan``, the events) are re-exported
here, where callers have always found them.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from subagent_tck.spec import Edition, ErrorCode, TckError

from ..core import heap
from ..core.certificate import Certificate, Jobs
from ..core.certificate_assembly import RunFacts, assemble
from ..core.promises_report import PromiseItem, PromisesReport
from ..core.protocol import TargetInfo
from ..core.suggest import hint
from ..core.target import Target
from . import draw_cache, own_tools, variable_names
from .events import CheckFinished, CheckStarted, Event, Handler, RunFinished, RunStarted, emit
from .jobs import run_in_parallel
from .planning import (
    DEFAULT_DEADLINE,
    DEFAULT_SEED,
    DEFAULT_TIMEOUT,
    PlannedCheck,
    RunConfig,
    Suite,
    cells,
    not_applicable,
    plan,
    resolve_edition,
    select_providers,
    select_rules,
)
from .profiles import PROFILES, Profile
from .scheduling import Books, Shared, Worker, run_serially
from .timings import BEFORE_CHECKS, Stopwatch
from .verdicts import not_run_after_interrupt
from .worker import Recipe, Setup

__all__ = [
    "DEFAULT_DEADLINE", "DEFAULT_SEED", "DEFAULT_TIMEOUT", "PROFILES", "CheckFinished",
    "CheckStarted", "Event", "Handler", "PlannedCheck", "Profile", "Recipe", "RunConfig",
    "RunFinished", "RunStarted", "Suite", "certify", "not_applicable", "plan", "resolve_edition",
    "select_providers", "select_rules",
]


@dataclass(frozen=True)
class _Probed:
    """What the kit asks a target once, before the first check."""

    #: the target's own global tools (:func:`own_tools.find`)
    own: tuple[str, ...] = ()
    #: it refuses variable names outside the portable set (:mod:`.variable_names`)
    portable_variables: bool = False


def _probe(target: Target, edition: Edition, timeout: float) -> _Probed:
    """The target's :class:`_Probed` facts, each within ``timeout``: a target that hangs on a
    deployment has none the kit can know of (its checks time out)."""
    own: list[tuple[str, ...]] = []
    portable: list[bool] = []
    probe = Worker()
    try:
        if not probe.run(lambda: own.append(own_tools.find(target, edition)), timeout):
            return _Probed()
        probe.run(lambda: portable.append(variable_names.refuses_unportable(target, edition)),
                  timeout)
        return _Probed(own[0] if own else (), bool(portable and portable[0]))
    finally:
        probe.close()


def _lanes(config: RunConfig, info: TargetInfo, recipe: Recipe | None,
           runs: int) -> tuple[int, str | None]:
    """How many check runs may run at once (docs/certify.md#jobs), and why fewer than
    ``--jobs`` asked, if so."""
    if config.jobs <= 1:
        return 1, None
    if info.serial is not None:
        return 1, f"the target runs one deployment at a time: {info.serial}"
    if recipe is None:
        return 1, ("the target was handed to certify as an object, with no recipe to load it "
                   "again in worker processes")
    if runs < config.jobs:
        return max(1, runs), f"{runs} check run{'' if runs == 1 else 's'} planned"
    return config.jobs, None


def _hypothesis_home() -> str:
    """Where Hypothesis keeps its files in this process: the workers keep theirs there too."""
    from hypothesis.configuration import storage_directory

    return str(storage_directory(intent_to_write=False).home_directory)


def _target_info(target: Target) -> TargetInfo:
    try:
        info = target.info()
    except TckError as exc:
        if exc.code == ErrorCode.USAGE:
            raise
        raise TckError(ErrorCode.TARGET_UNREACHABLE,
                       f"the target's info() failed: {exc.message}") from exc
    except Exception as exc:
        raise TckError(ErrorCode.TARGET_UNREACHABLE,
                       f"the target's info() failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(info, TargetInfo):
        raise TckError(ErrorCode.PROTOCOL_ERROR,
                       f"the target's info() returned {type(info).__name__}, not a TargetInfo")
    return info


def _check_promises(target: Target, config: RunConfig,
                    deadline_at: float) -> tuple[PromisesReport, bool]:
    """``certify --promises``: the file's promises, after the rules (docs/certify.md), and
    whether Ctrl-C stopped them (the items judged before it are kept)."""
    from .promises import check_all

    assert config.promises is not None
    began = time.monotonic()
    judged: list[PromiseItem] = []
    try:
        report = check_all(target, config.promises, target_spec=config.target_spec,
                           path=config.promises_path, keep_going=True, deadline=deadline_at,
                           progress=judged.append)
    except KeyboardInterrupt:
        return PromisesReport(target=config.target_spec, file=config.promises_path,
                              seconds=round(time.monotonic() - began, 3), items=judged), True
    return report, False


def certify(target: Target, config: RunConfig | None = None, *,
            handlers: Sequence[Handler] = (), suite: Suite | None = None,
            recipe: Recipe | None = None) -> Certificate:
    """Certify ``target``: plan, run every applicable check, and return the certificate.

    ``recipe`` makes the target and the suite again in worker processes: without one, a run
    of ``config.jobs`` above 1 runs one check run at a time and its certificate says why.

    Raises :class:`~subagent_tck.spec.TckError` only before anything runs: ``USAGE`` for a bad
    configuration (edition, rule id, profile, baseline), ``TARGET_UNREACHABLE`` or
    ``PROTOCOL_ERROR`` when the target cannot even describe itself. After that, whatever the
    target does is an outcome in the certificate.
    """
    config = config or RunConfig()
    suite = suite or Suite.default()
    if config.profile not in PROFILES:
        raise TckError(ErrorCode.USAGE, f"unknown profile {config.profile!r}"
                       f"{hint(config.profile, PROFILES)}: use one of " + ", ".join(PROFILES))
    for name, value in (("--timeout", config.timeout), ("--deadline", config.deadline)):
        if not value > 0:
            raise TckError(ErrorCode.USAGE, f"{name} must be a positive number of seconds")
    if config.jobs < 1:
        raise TckError(ErrorCode.USAGE, f"--jobs {config.jobs}: give a positive number of check "
                       "runs at once (1: one after another)")
    draw_cache.mode()  # a bad SUBAGENT_TCK_DRAW_CACHE is a usage error before anything runs
    profile = PROFILES[config.profile]
    selected = select_rules(suite, config.rules)
    started_at = datetime.now(timezone.utc)
    start = time.monotonic()
    # --timings: one stopwatch around the target, bound to each part of the run
    watch = Stopwatch() if config.timings else None
    asked = watch.bound(target, BEFORE_CHECKS) if watch is not None else target
    info = _target_info(asked)
    edition = resolve_edition(info, config.edition)
    chosen = select_providers(info, config.providers)
    if config.baseline is not None:
        config.baseline.validate(suite.by_id, [p.name for p in info.providers])
    planned = plan(suite, info, edition, selected, chosen)
    # the target's own global tools (a plugin's) are named, not judged:
    # docs/certify.md#tools-the-target-brings
    probed = _probe(asked, edition, config.timeout)
    own = probed.own
    checked = own_tools.hiding(target, own)
    if watch is not None:
        watch.before_checks_seconds = time.monotonic() - start
    titles = {r.id: r.title for r in suite.rules}
    table = cells(suite, info, edition, selected, chosen)
    emit(handlers, RunStarted(info, edition, config, tuple(planned)))

    shared = Shared(info=info, edition=edition, profile=profile, seed=config.seed,
                    timeout=config.timeout, deadline=config.deadline,
                    deadline_at=start + config.deadline, titles=titles,
                    portable_variables=probed.portable_variables)
    books = Books(planned, shared, table, {key for key, evidence in table.items()
                                           if not evidence}, handlers)

    def given(index: int) -> Target:
        return checked if watch is None else own_tools.hiding(watch.bound(target, index), own)

    lanes, why = _lanes(config, info, recipe, len(planned))
    jobs = None
    if lanes > 1 and recipe is not None:
        setup = Setup(recipe, shared, own, config.timings, _hypothesis_home())
        ran, report = run_in_parallel(books, setup, lanes, given, watch)
        lost = "; ".join(report.lost) or None
        jobs = Jobs(asked=config.jobs, used=report.used,
                    why="; ".join(w for w in (why, lost) if w) or None)
    else:
        with heap.set_aside():  # what exists now outlives the run: no collection walks it
            ran = run_serially(books, given)
        if config.jobs > 1:
            jobs = Jobs(asked=config.jobs, used=1, why=why)
    interrupted, stopped_early = ran.interrupted, ran.stopped_early
    if interrupted:
        not_run_after_interrupt(table, books.undecided)
    facts = RunFacts(
        target_spec=config.target_spec, info=info, edition=edition, profile=profile.name,
        max_examples=profile.max_examples, seed=config.seed,
        selected=sorted(selected) if selected is not None else None,
        baseline=config.baseline, started_at=started_at, duration=time.monotonic() - start,
        runs=ran.runs, providers=sorted(chosen) if chosen is not None else None,
        interrupted=interrupted, stopped_early=stopped_early, target_tools=own,
        portable_variables=probed.portable_variables,
        timings=watch.timings(ran.spans) if watch is not None else None, jobs=jobs,
        partitions={c.name: tuple(p.declared() for p in c.partitions)
                    for c in suite.checks.values() if c.partitions},
        drawn=tuple(ran.drawn),
    )
    promised = None
    if config.promises is not None and not interrupted:
        promised, interrupted = _check_promises(target, config, shared.deadline_at)
        if interrupted:
            stopped_early = ("interrupted (Ctrl-C) while the promises were checked: the "
                             "promises left were not checked")
    facts = dataclasses.replace(facts, interrupted=interrupted, stopped_early=stopped_early,
                                duration=time.monotonic() - start)
    certificate = assemble(facts, suite.rules, table, promised)
    emit(handlers, RunFinished(certificate))
    return certificate
