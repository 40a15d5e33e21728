"""The runner: plan what applies to a target, run each check safely, and hand results on.

Planning (docs/architecture.md): a check runs once per provider it applies to
(once for the target when ``per_provider`` is false). A rule applies to a provider when its
capability is None or advertised by that provider (CA-04: an advertised capability is judged by
its whole family; an absent one makes its rules not-applicable, and the CA rules then judge the
refusal), its edition is the run's, and its component (ST) is shipped by the target.

Running: each check runs in a worker thread with a timeout, inside a deadline for the whole
run. A check that raises, a target that throws, a check that hangs, and a scripted model reply
the target never asked for are all ``error`` outcomes, never a crash of the kit and never a
pass. A rule the check cites but never decided is ``not-run``.

Reporting: the runner emits :class:`RunStarted`, :class:`CheckStarted`, :class:`CheckFinished`
and :class:`RunFinished` to handlers; each reporter is a small handler.
"""

from __future__ import annotations

import contextlib
import dataclasses
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from subagent_tck.spec import (
    CATALOGUE,
    DEFAULT_EDITION,
    Edition,
    ErrorCode,
    Rule,
    StopReason,
    TckError,
)

from ..core.baseline import Baseline
from ..core.certificate import Certificate, CheckRun, Evidence, RunFacts, RunStatus, assemble
from ..core.drawn import DrawnRun
from ..core.gateway import Gateway
from ..core.outcome import Failure, Outcome
from ..core.promises_file import PromisesFile
from ..core.promises_report import PromiseItem, PromisesReport
from ..core.protocol import DeploymentConfig, ProviderInfo, RunResult, TargetInfo
from ..core.suggest import hint, rule_hint
from ..core.target import Deployment, Target
from ..core.unsupported import deployed, guard
from . import own_tools, variable_names
from .check import Check, CheckContext, run_check
from .profiles import PROFILES, Profile
from .timings import BEFORE_CHECKS, CheckSpan, Stopwatch, format_exception

#: The seed of a run when none is given: runs are reproducible by default.
DEFAULT_SEED = 0
DEFAULT_TIMEOUT = 30.0
DEFAULT_DEADLINE = 600.0


@dataclass(frozen=True)
class RunConfig:
    """Everything that shapes one certification run (the CLI's ``certify`` options)."""

    target_spec: str = "<in-process>"
    edition: Edition | None = None  # None: the default edition if supported, else the first
    rules: tuple[str, ...] = ()  # empty: every rule
    profile: str = "ci"
    seed: int = DEFAULT_SEED
    timeout: float = DEFAULT_TIMEOUT
    deadline: float = DEFAULT_DEADLINE
    baseline: Baseline | None = None
    providers: tuple[str, ...] = ()  # empty: every provider the target advertises
    promises: PromisesFile | None = None  # certify --promises: checked after the rules
    promises_path: str = ""
    #: certify --timings: time every check run and target operation (docs/certify.md#timings)
    timings: bool = False


@dataclass(frozen=True)
class Suite:
    """The rules and the checks a run uses (the real catalogue and registry by default)."""

    rules: tuple[Rule, ...]
    checks: Mapping[str, Check]

    @classmethod
    def default(cls) -> Suite:
        from .checks import load_checks

        return cls(tuple(CATALOGUE), dict(load_checks()))

    @property
    def by_id(self) -> dict[str, Rule]:
        return {rule.id: rule for rule in self.rules}


@dataclass(frozen=True)
class PlannedCheck:
    """One check to run, for one provider (or the whole target), deciding ``rules``."""

    check: Check
    provider: ProviderInfo | None
    rules: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.check.name} [{self.provider.name}]" if self.provider else self.check.name


# --- events ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunStarted:
    info: TargetInfo
    edition: Edition
    config: RunConfig
    plan: tuple[PlannedCheck, ...]


@dataclass(frozen=True)
class CheckStarted:
    index: int
    total: int
    planned: PlannedCheck


@dataclass(frozen=True)
class CheckFinished:
    index: int
    total: int
    planned: PlannedCheck
    outcomes: Mapping[str, Outcome]
    failures: tuple[Failure, ...]
    duration: float


@dataclass(frozen=True)
class RunFinished:
    certificate: Certificate


Event = RunStarted | CheckStarted | CheckFinished | RunFinished
Handler = Callable[[Event], None]


# --- planning ----------------------------------------------------------------------------


def resolve_edition(info: TargetInfo, wanted: Edition | str | None) -> Edition:
    """The run's edition: ``wanted`` if the target supports it (else a usage error naming the
    supported ones), or the default edition, or the target's first."""
    supported = list(info.editions)
    names = ", ".join(e.value for e in supported) or "none"
    if wanted is None:
        if not supported:
            raise TckError(ErrorCode.PROTOCOL_ERROR, "the target's info() lists no editions")
        return DEFAULT_EDITION if DEFAULT_EDITION in supported else supported[0]
    try:
        edition = Edition(wanted)
    except ValueError:
        known = [e.value for e in Edition]
        raise TckError(ErrorCode.USAGE, f"unknown edition {wanted!r}{hint(str(wanted), known)}"
                       f": editions are {', '.join(known)}") from None
    if edition not in supported:
        raise TckError(
            ErrorCode.USAGE,
            f"the target does not support edition {edition.value}: use --edition with one of "
            f"{names}",
        )
    return edition


def not_applicable(rule: Rule, edition: Edition, info: TargetInfo,
                   provider: ProviderInfo | None) -> str | None:
    """Why ``rule`` does not apply to ``provider`` (None: the whole target), or None."""
    if rule.edition is not None and rule.edition != edition:
        return f"edition {rule.edition.value} only (this run: {edition.value})"
    if rule.component is not None and rule.component not in info.components:
        return f"component {rule.component.value} not shipped by the target"
    if rule.capability is None:
        return None
    if provider is None:
        if any(rule.capability in p.capabilities for p in info.providers):
            return None
        return f"no provider advertises {rule.capability.value}"
    if rule.capability not in provider.capabilities:
        return f"provider {provider.name} does not advertise {rule.capability.value}"
    return None


def select_rules(suite: Suite, wanted: Iterable[str]) -> frozenset[str] | None:
    """The selected rule ids (None: all); an unknown id is a usage error naming the fix."""
    wanted = list(wanted)
    if not wanted:
        return None
    known = suite.by_id
    chosen = set()
    for raw in wanted:
        rule_id = raw.strip().upper()
        if rule_id not in known:
            raise TckError(ErrorCode.USAGE, f"unknown rule id {raw!r}{rule_hint(raw, known)} in "
                           "--rule: ids look like TF-01 (see `subagent-tck rules`)")
        chosen.add(rule_id)
    return frozenset(chosen)


def select_providers(info: TargetInfo, wanted: Iterable[str]) -> frozenset[str] | None:
    """The providers to certify (None: all); a name the target does not advertise is a usage
    error with the closest advertised name."""
    wanted = list(wanted)
    if not wanted:
        return None
    advertised = [p.name for p in info.providers]
    for name in wanted:
        if name not in advertised:
            raise TckError(ErrorCode.USAGE, f"--provider {name!r}{hint(name, advertised)}: the "
                           "target advertises no such provider; its providers are "
                           f"{', '.join(advertised) or 'none'}")
    return frozenset(wanted)


def _certified(info: TargetInfo, providers: frozenset[str] | None) -> list[ProviderInfo]:
    """The providers whose own cells a run fills (``--provider``): checks that bind the whole
    target still see every provider."""
    return [p for p in info.providers if providers is None or p.name in providers]


def plan(suite: Suite, info: TargetInfo, edition: Edition,
         selected: frozenset[str] | None,
         providers: frozenset[str] | None = None) -> list[PlannedCheck]:
    """The checks to run, in registry order, each with the selected rules it decides (per
    provider only for the ``providers`` chosen, None: all)."""
    rules = suite.by_id
    planned = []
    for check in suite.checks.values():
        if check.edition is not None and check.edition != edition:
            continue
        scopes: list[ProviderInfo | None] = (list(_certified(info, providers))
                                             if check.per_provider else [None])
        for provider in scopes:
            decides = tuple(
                r for r in check.rules
                if r in rules and not_applicable(rules[r], edition, info, provider) is None
                and (selected is None or r in selected)
            )
            if decides:
                planned.append(PlannedCheck(check, provider, decides))
    return planned


def _scopes(suite: Suite, info: TargetInfo,
            providers: frozenset[str] | None = None) -> dict[str, list[str | None]]:
    """Where each rule's results live: per (chosen) provider, and/or for the whole target
    (None)."""
    out: dict[str, list[str | None]] = {r.id: [] for r in suite.rules}
    names: list[str | None] = [p.name for p in _certified(info, providers)]
    for check in suite.checks.values():
        if check.supplementary:
            continue  # it adds failures to the cells other checks decide, never a cell
        for rule_id in check.rules:
            keys = names if check.per_provider else [None]
            for key in keys:
                if rule_id in out and key not in out[rule_id]:
                    out[rule_id].append(key)
    for keys in out.values():
        if not keys:
            keys.append(None)  # decided by no check: one target-wide not-run
    return out


# --- running -----------------------------------------------------------------------------


@dataclass
class _RunContext(CheckContext):
    """A check context that remembers every gateway it handed out (for unconsumed scripts),
    every deployment, and every child run that did not complete (the causes of failures)."""

    gateways: list[Gateway] = field(default_factory=list)
    deployments: list[Deployment] = field(default_factory=list)
    stopped: list[RunResult] = field(default_factory=list)

    def deploy(self, config: DeploymentConfig | None = None, *, tools: Sequence[str] = (),
               **fields: object) -> Deployment:
        # an UNSUPPORTED_OPERATION answer is judged here, by the call the kit made
        # (docs/driver-api.md#unsupported-operations)
        mode = config.mode if config is not None else fields.get("mode")
        deployment = guard(deployed(lambda: super(_RunContext, self).deploy(
            config, tools=list(tools), **fields), mode))
        self.gateways.append(self.gateway)
        # the latest few only: a property check deploys once per example, and the failing
        # (shrunk) example runs last
        self.deployments = [*self.deployments[-(MAX_CAUSES - 1):], deployment]
        for name in ("start", "run_turn"):
            self._record_runs(deployment, name)
        return deployment

    def _record_runs(self, deployment: Deployment, name: str) -> None:
        method = getattr(deployment, name, None)
        if not callable(method):
            return

        def recorded(*args: object, **kwargs: object) -> object:
            result = method(*args, **kwargs)
            if isinstance(result, RunResult) and result.stopReason != StopReason.COMPLETED:
                self.stopped = [*self.stopped[-(MAX_CAUSES - 1):], result]
            return result

        with contextlib.suppress(AttributeError, TypeError):  # slots: no causes recorded
            setattr(deployment, name, recorded)

    def causes(self) -> tuple[str | None, str | None]:
        """Why children did what they did in this check: the stop reasons and error texts of
        runs that did not complete, and what a provider raised (with its traceback)."""
        lines: list[str] = []
        trace: str | None = None
        for deployment in self.deployments:
            faults = getattr(deployment, "faults", None)
            try:
                found = list(faults()) if callable(faults) else []
            except Exception:  # a cause is a courtesy: never a crash of the kit
                found = []
            for provider, error, text in found[:MAX_CAUSES]:
                lines.append(f"provider {provider} raised {error}")
                trace = trace or text
        for result in self.stopped:
            output = result.output if isinstance(result.output, str) else repr(result.output)
            lines.append(f"the child {result.agent} stopped with stop reason "
                         f"{result.stopReason.value!r}: {output[:MAX_CAUSE_CHARS]}")
        return ("; ".join(dict.fromkeys(lines)) or None), trace


#: How many causes a failure lists, and how long a child's error text may be in one.
MAX_CAUSES = 5
MAX_CAUSE_CHARS = 1000


def _with_causes(ctx: _RunContext, out: dict[str, Evidence]) -> dict[str, Evidence]:
    """``out`` with every failure that has no cause yet given the causes the check's children
    left (new failures: a :class:`Failure` is never changed after it is made)."""
    if not any(e.failures for e in out.values()):
        return out
    cause, trace = ctx.causes()
    update = {k: v for k, v in (("cause", cause), ("traceback", trace)) if v is not None}
    if not update:
        return out

    def caused(failure: Failure) -> Failure:
        missing = {k: v for k, v in update.items() if getattr(failure, k) is None}
        return failure.model_copy(update=missing) if missing else failure

    return {rule: Evidence(e.outcome, e.reason, [caused(f) for f in e.failures])
            for rule, e in out.items()}


def _error(planned: PlannedCheck, rule: str, message: str, title: str,
           trace: str | None = None) -> Failure:
    return Failure(
        rule=rule, check=planned.check.name, title=title, message=message, error=True,
        provider=planned.provider.name if planned.provider else None, traceback=trace,
    )


def _judge_run(planned: PlannedCheck, ctx: _RunContext,
               titles: Mapping[str, str]) -> tuple[dict[str, Evidence], RunStatus]:
    """Turn a finished check context into evidence per decided rule, and the run's status.

    A check that stopped on an exception leaves its undecided rules ``error`` (never pass);
    so does a clean run that left scripted model replies unconsumed: its scenario did not
    happen as designed, so nothing it saw can certify.
    """
    void: str | None = None
    trace: str | None = None
    status = RunStatus.FINISHED
    crash = next((f for f in ctx.failures if f.traceback), None)
    if crash is not None:
        status, trace = RunStatus.CRASHED, crash.traceback
        void = f"not decided: check {planned.check.name} stopped early ({crash.message})"
    elif ctx.unsupported is not None:
        status = RunStatus.UNSUPPORTED  # its scenario stopped: replies left are no fault
    elif not ctx.failures:
        left = {m: n for g in ctx.gateways for m, n in g.unconsumed().items()}
        if left:
            markers = ", ".join(f"{m!r} ({n} repl{'y' if n == 1 else 'ies'} left)"
                                for m, n in sorted(left.items()))
            status = RunStatus.UNCONSUMED_SCRIPT
            void = (f"the target never asked for the model replies scripted for {markers}: "
                    f"the scenario of check {planned.check.name} did not happen, so its "
                    "verdict is void")
    out: dict[str, Evidence] = {}
    for rule in planned.rules:
        failures = [f for f in ctx.failures if f.rule == rule]
        if failures:
            outcome = Outcome.ERROR if all(f.error for f in failures) else Outcome.FAIL
            out[rule] = Evidence(outcome, "", failures)
        elif void is not None:
            out[rule] = Evidence(Outcome.ERROR, "", [
                _error(planned, rule, void, titles[rule], trace)])
        elif ctx.unsupported is not None:
            out[rule] = Evidence(Outcome.NOT_APPLICABLE, ctx.not_applicable.get(
                rule, ctx.unsupported), inexpressible=True)
        elif rule in ctx.exercised:  # verified at least once: a skip of another case is moot
            out[rule] = Evidence(Outcome.PASS)
        elif rule in ctx.not_applicable:
            out[rule] = Evidence(Outcome.NOT_APPLICABLE, ctx.not_applicable[rule])
        else:
            out[rule] = Evidence(
                Outcome.NOT_RUN, f"check {planned.check.name} ran but never verified this rule")
    return _with_causes(ctx, out), status


def _all_errors(planned: PlannedCheck, message: str,
                titles: Mapping[str, str]) -> dict[str, Evidence]:
    return {rule: Evidence(Outcome.ERROR, "", [_error(planned, rule, message, titles[rule])])
            for rule in planned.rules}


class _Worker:
    """One daemon thread that runs checks in turn. Reused, because Hypothesis pays a garbage
    collection for every new thread it sees; replaced when a check overruns (the hung thread
    is abandoned: daemon, it never keeps the process alive)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        threading.Thread(target=self._loop, daemon=True, name="subagent-tck check").start()

    def _loop(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()

    def run(self, action: Callable[[], None], timeout: float) -> bool:
        """Run ``action`` on the worker; False when it did not finish within ``timeout``."""
        done = threading.Event()

        def job() -> None:
            try:
                action()
            finally:
                done.set()

        self._jobs.put(job)
        return done.wait(timeout)

    def close(self) -> None:
        self._jobs.put(None)


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
    probe = _Worker()
    try:
        if not probe.run(lambda: own.append(own_tools.find(target, edition)), timeout):
            return _Probed()
        probe.run(lambda: portable.append(variable_names.refuses_unportable(target, edition)),
                  timeout)
        return _Probed(own[0] if own else (), bool(portable and portable[0]))
    finally:
        probe.close()


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:  # an exception that cannot even be printed
        return type(exc).__name__


def _run_one(worker: _Worker, planned: PlannedCheck, target: Target, info: TargetInfo,
             edition: Edition, profile: Profile, seed: int, timeout: float, timeout_reason: str,
             titles: Mapping[str, str], probed: _Probed, drawn: list[DrawnRun],
             ) -> tuple[dict[str, Evidence], RunStatus, str | None]:
    """Run one planned check; what it drew of its partitions joins ``drawn`` (nothing, when it
    overran: its context is abandoned)."""
    key = planned.provider.name if planned.provider else None
    ctx = _RunContext(
        target=target, check=planned.check, edition=edition, provider=planned.provider,
        providers=list(info.providers), seed=seed, max_examples=profile.max_examples,
        portable_variables=probed.portable_variables,
    )
    escaped: list[tuple[str, str]] = []

    def work() -> None:
        try:
            run_check(ctx)
        except BaseException as exc:  # run_check's own handling failed: never a pass
            escaped.append((_describe(exc), format_exception(exc)))

    if not worker.run(work, timeout):  # abandoned: its context is never read again
        message = (f"check {planned.check.name} did not finish within {timeout:g} s "
                   f"({timeout_reason}): the target hung or is too slow")
        drawn.append(DrawnRun(planned.check.name, key, planned.rules))  # nothing it drew counts
        return _all_errors(planned, message, titles), RunStatus.TIMEOUT, None
    drawn.append(DrawnRun(planned.check.name, key, planned.rules, dict(ctx.drawn),
                          frozenset(ctx.inapplicable_partitions), frozenset(ctx.not_applicable)))
    if escaped:
        head, trace = escaped[0]
        results = {rule: Evidence(Outcome.ERROR, "", [_error(
            planned, rule, f"check {planned.check.name} could not report its result ({head})",
            titles[rule], trace)]) for rule in planned.rules}
        return results, RunStatus.CRASHED, ctx.note
    return (*_judge_run(planned, ctx, titles), ctx.note)


def _add_findings(table: dict[tuple[str, str | None], list[Evidence]],
                  undecided: set[tuple[str, str | None]], rule_id: str,
                  evidence: Evidence) -> None:
    """File what a supplementary check found for ``rule_id``: each failure in the cell of its
    provider when that cell is decided here, else in the rule's target-wide cell, else in every
    provider cell of the rule that applies (a fault of the shared runtime, seen through no
    provider in particular). Passes and not-runs of a supplementary check decide nothing."""
    if evidence.outcome not in (Outcome.FAIL, Outcome.ERROR):
        return
    for failure in evidence.failures:
        own = (rule_id, failure.provider)
        if own in undecided:
            cells = [own]
        elif (rule_id, None) in undecided:
            cells = [(rule_id, None)]
        else:
            cells = sorted((key for key in undecided if key[0] == rule_id),
                           key=lambda key: key[1] or "")
        outcome = Outcome.ERROR if failure.error else Outcome.FAIL
        for cell in cells or [(rule_id, None)]:  # never lost, even where no check decides
            table.setdefault(cell, []).append(Evidence(outcome, "", [failure]))


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


def _table(suite: Suite, info: TargetInfo, edition: Edition, selected: frozenset[str] | None,
           chosen: frozenset[str] | None = None,
           ) -> dict[tuple[str, str | None], list[Evidence]]:
    """Every (rule, provider) cell of the certificate, with what is known before running:
    not-applicable with its reason, or not-run when deselected; empty cells wait for checks.
    Providers not ``chosen`` (``--provider``) have no cells."""
    providers = {p.name: p for p in info.providers}
    scopes = _scopes(suite, info, chosen)
    table: dict[tuple[str, str | None], list[Evidence]] = {}
    for rule in suite.rules:
        for key in scopes[rule.id]:
            reason = not_applicable(rule, edition, info, providers.get(key) if key else None)
            if reason is not None:
                table[rule.id, key] = [Evidence(Outcome.NOT_APPLICABLE, reason)]
            elif selected is not None and rule.id not in selected:
                table[rule.id, key] = [Evidence(Outcome.NOT_RUN, "deselected (--rule)")]
            else:
                table[rule.id, key] = []
    return table


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
            handlers: Sequence[Handler] = (), suite: Suite | None = None) -> Certificate:
    """Certify ``target``: plan, run every applicable check, and return the certificate.

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
    table = _table(suite, info, edition, selected, chosen)
    for handler in handlers:
        handler(RunStarted(info, edition, config, tuple(planned)))

    runs: list[CheckRun] = []
    spans: list[CheckSpan] = []  # --timings: each check run's wall time
    drawn_runs: list[DrawnRun] = []  # what each run drew of its partitions
    #: the cells the checks decide (not the not-applicable and deselected ones)
    undecided = {key for key, evidence in table.items() if not evidence}
    deadline_at = start + config.deadline
    expired = f"the run's deadline of {config.deadline:g} s (--deadline) expired"
    stopped_early: str | None = None
    interrupted = False
    worker = _Worker()
    for index, item in enumerate(planned):
        try:
            for handler in handlers:
                handler(CheckStarted(index, len(planned), item))
            began = time.monotonic()
            remaining = deadline_at - began
            if remaining <= 0:
                message = f"{expired} before check {item.check.name} could run"
                results, status, note = _all_errors(item, message, titles), RunStatus.DEADLINE, None
                drawn_runs.append(DrawnRun(item.check.name, None if item.provider is None
                                           else item.provider.name, item.rules))
            else:
                allowed = max(config.timeout, item.check.timeout or 0.0)
                budget = min(allowed, remaining)
                reason = ("what was left of --deadline" if budget < allowed
                          else "--timeout" if allowed == config.timeout
                          else f"the time check {item.check.name} asks for")
                given = (checked if watch is None
                         else own_tools.hiding(watch.bound(target, index), own))
                results, status, note = _run_one(worker, item, given, info, edition, profile,
                                                 config.seed, budget, reason, titles, probed,
                                                 drawn_runs)
                if status is RunStatus.TIMEOUT:
                    worker.close()  # the hung thread leaves when (if) its check returns
                    worker = _Worker()
                # the kit's limit, not the target's:
                if status is RunStatus.TIMEOUT and budget < allowed:
                    status = RunStatus.DEADLINE
                    results = _all_errors(
                        item, f"{expired} during check {item.check.name}", titles)
        except KeyboardInterrupt:  # Ctrl-C: stop here, keep what ran (exit code 130)
            interrupted = True
            stopped_early = (f"interrupted (Ctrl-C) after {index} of {len(planned)} check "
                             "runs: the rules left did not run")
            break
        if status is RunStatus.DEADLINE and stopped_early is None:
            stopped_early = f"{expired} after {index} of {len(planned)} check runs"
        duration = time.monotonic() - began
        key = item.provider.name if item.provider else None
        for rule_id, evidence in results.items():
            if item.check.supplementary:
                _add_findings(table, undecided, rule_id, evidence)
            else:
                table[rule_id, key].append(evidence)
        runs.append(CheckRun(check=item.check.name, provider=key, rules=list(item.rules),
                             status=status, duration=round(duration, 4), note=note))
        spans.append(CheckSpan(item.check.name, key, duration, item.check.supplementary))
        for handler in handlers:
            handler(CheckFinished(
                index, len(planned), item, {r: e.outcome for r, e in results.items()},
                tuple(f for e in results.values() for f in e.failures), duration))

    worker.close()
    if interrupted:
        for cell in undecided:
            if not table[cell]:
                table[cell].append(Evidence(Outcome.NOT_RUN,
                                            "interrupted (Ctrl-C) before it ran"))
    facts = RunFacts(
        target_spec=config.target_spec, info=info, edition=edition, profile=profile.name,
        max_examples=profile.max_examples, seed=config.seed,
        selected=sorted(selected) if selected is not None else None,
        baseline=config.baseline, started_at=started_at, duration=time.monotonic() - start,
        runs=runs, providers=sorted(chosen) if chosen is not None else None,
        interrupted=interrupted, stopped_early=stopped_early, target_tools=own,
        portable_variables=probed.portable_variables,
        timings=watch.timings(spans) if watch is not None else None,
        partitions={c.name: tuple(p.declared() for p in c.partitions)
                    for c in suite.checks.values() if c.partitions},
        drawn=tuple(drawn_runs),
    )
    promised = None
    if config.promises is not None and not interrupted:
        promised, interrupted = _check_promises(target, config, deadline_at)
        if interrupted:
            stopped_early = ("interrupted (Ctrl-C) while the promises were checked: the "
                             "promises left were not checked")
    facts = dataclasses.replace(facts, interrupted=interrupted, stopped_early=stopped_early,
                                duration=time.monotonic() - start)
    certificate = assemble(facts, suite.rules, table, promised)
    for handler in handlers:
        handler(RunFinished(certificate))
    return certificate
