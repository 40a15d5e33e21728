"""The certificate: what a run found, as a versioned JSON document
(docs/architecture.md).

Outcomes are per rule and provider; a rule's overall outcome is the worst over providers
(not-applicable only when it is not applicable anywhere). A provider's capability is
CERTIFIED only when every MUST rule of that capability and every core MUST rule (capability
None: CA, FR, the DE domain rules, EN of the edition, ST when shipped) passed or is a
baselined expected-fail for that provider (CA-04: one failing rule fails the capability, never
a partial pass). SHOULD rules are reported, never decisive. A MUST rule that applies but did
not run certifies nothing.

The committed JSON Schema ``certificate.schema.json`` is generated from these models::

    python -m subagent_tck.conformance.core.certificate > conformance/core/certificate.schema.json
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, TypeAdapter

from subagent_tck.spec import (
    CONTROLS,
    DEFAULT_EDITION,
    Capability,
    Component,
    Edition,
    Family,
    Level,
    Rule,
    catalogue_hash,
)

from . import fingerprint
from .baseline_judge import BaselineSummary, judge
from .dialect import Dialect, dialect_of
from .drawn import DeclaredPartition, DrawnRun, PartitionDrawn, records
from .outcome import BAD, RAN, Evidence, Failure, Outcome
from .promises_report import PromisesReport
from .protocol import TargetInfo

if TYPE_CHECKING:
    from .baseline import Baseline

SCHEMA_VERSION = "1"
REGENERATE = ("python -m subagent_tck.conformance.core.certificate > "
              "conformance/core/certificate.schema.json")

#: From worst to best: a rule's overall outcome is the first one any provider has.
SEVERITY: tuple[Outcome, ...] = (
    Outcome.UNEXPECTED_PASS, Outcome.FAIL, Outcome.ERROR, Outcome.NOT_RUN,
    Outcome.EXPECTED_FAIL, Outcome.PASS, Outcome.NOT_APPLICABLE,
)


class Verdict(str, Enum):
    CERTIFIED = "CERTIFIED"
    FAILED = "FAILED"
    #: A partial run (``--rule``): every selected rule passed. Not a certificate: the rules
    #: that were not selected did not run, and a MUST rule that did not run never certifies.
    PASSED = "PASSED"
    #: A partial run selected none of the rules of this capability that apply (or, for the
    #: whole run, none that apply at all), or every rule of it that applies was not applicable
    #: (the target cannot express their operations): nothing was judged, so nothing passed
    #: and nothing is certified (exit code 1).
    NOT_RUN = "NOT-RUN"


class ProviderOutcome(BaseModel):
    """A rule's outcome for one provider (``provider`` None: decided once for the target)."""

    provider: str | None
    outcome: Outcome
    reason: str = Field("", description="why not-applicable, not-run or expected-fail")
    inexpressible: bool = Field(False, description="not applicable because the target "
                                "cannot express an operation the rule's check needs "
                                "(UNSUPPORTED_OPERATION, docs/driver-api.md)")


class RuleResult(BaseModel):
    id: str
    title: str
    level: Level
    family: Family
    capability: Capability | None = None
    component: Component | None = None
    edition: Edition | None = None
    outcome: Outcome
    providers: list[ProviderOutcome]
    failures: list[Failure] = Field(default_factory=list)
    replay: str | None = Field(None, description="the command that reruns this rule alone")
    partitions: list[PartitionDrawn] = Field(
        default_factory=list, description="the partitions of the rule's domain its checks "
        "declare, and which of their runs drew a case of each (docs/certify.md#partitions)")

    def reasons(self, *outcomes: Outcome) -> str:
        """The reasons of its per-provider outcomes (of ``outcomes``, or all), each once:
        ``"spawn, fork: edition request-controls only"``."""
        grouped: dict[str, list[str]] = {}
        for p in self.providers:
            if p.reason and (not outcomes or p.outcome in outcomes):
                grouped.setdefault(p.reason, []).append(p.provider or "target")
        return "; ".join(f"{', '.join(who)}: {why}" for why, who in grouped.items())


class CapabilityVerdict(BaseModel):
    """One provider's verdict for one advertised capability (``capability`` None: the core
    rules, which bind every provider whatever it advertises)."""

    provider: str
    capability: Capability | None
    verdict: Verdict
    blocking: list[str] = Field(default_factory=list, description="'RULE-ID outcome' items")


class RunStatus(str, Enum):
    """How one check's run ended (the ``status`` of a certificate's ``checks`` entry)."""

    FINISHED = "finished"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    DEADLINE = "deadline"
    UNCONSUMED_SCRIPT = "unconsumed-script"
    #: stopped at an operation the target cannot express: its rules not failed are
    #: not applicable (docs/driver-api.md#unsupported-operations)
    UNSUPPORTED = "unsupported"


class CheckRun(BaseModel):
    check: str
    provider: str | None
    rules: list[str]
    status: RunStatus
    duration: float = Field(description="seconds")
    note: str | None = Field(None, description="what the check did, when it says (the fuzz "
                             "campaign: steps, rules compared; the restriction channels it "
                             "built its cases through)")
    entry_points: list[str] = Field(default_factory=list, description="the restriction "
                                    "channels it built its cases through, as the dialect "
                                    "section names them (docs/driver-api.md#dialect)")


class PhaseTiming(BaseModel):
    """Where the time of one part of a run went (docs/certify.md#timings)."""

    seconds: float = Field(ge=0, description="wall-clock seconds of the part")
    deployments: int = Field(ge=0, description="deployments it asked the target for")
    operations: int = Field(ge=0, description="target operations it called (deploy, start, "
                            "view, ...), nested calls not counted again")
    operation_seconds: float = Field(ge=0, description="seconds spent inside those operations; "
                                     "the rest of seconds is the kit's own work")


class CheckTiming(PhaseTiming):
    """The time of one check run (a fuzz campaign is one too)."""

    check: str
    provider: str | None = Field(description="the provider it ran for; null: the whole target")


class OperationTiming(BaseModel):
    """Every call of one target operation in the run, together."""

    operation: str = Field(description="a Target or Deployment operation, by its Python name")
    count: int = Field(ge=0, description="calls")
    seconds: float = Field(ge=0, description="seconds over every call, each call's own time "
                           "including any operation called while it ran")
    max_seconds: float = Field(ge=0, description="the longest call")


class Timings(BaseModel):
    """``certify --timings``: time per check run, per campaign and per target operation
    (docs/certify.md#timings). Clock readings only: never part of an outcome."""

    unit: Literal["seconds"] = "seconds"
    before_checks: PhaseTiming = Field(description="what the kit asked the target before the "
                                       "first check: info(), its own tools, its variable names")
    checks: list[CheckTiming] = Field(description="every check run but the campaigns, in the "
                                      "order they ran")
    campaigns: list[CheckTiming] = Field(description="the supplementary check runs: the fuzz "
                                         "campaign a whole run adds")
    operations: list[OperationTiming] = Field(description="per target operation, by name")


class TargetIdentity(BaseModel):
    spec: str = Field(description="the TARGET argument that names it, e.g. reference")
    info: TargetInfo


#: Template variable names every runtime the kit has met accepts (docs/certify.md#generated-
#: cases): a target that refuses the others gets drawn cases of these only.
PORTABLE_VARIABLE_PATTERN = "[a-z][a-z0-9_]*"


def portable_note(code: Callable[[str], str] = str) -> str:
    """What a certificate's ``portable_variables`` means, in every report (``code`` sets the
    pattern apart: a Markdown code span)."""
    return (f"the target refused names outside {code(PORTABLE_VARIABLE_PATTERN)} when asked "
            "before the first check; the drawn cases named variables of that form only")


class Certificate(BaseModel):
    schema_version: str = SCHEMA_VERSION
    kit: str = "subagent-tck"
    kit_version: str
    catalogue_hash: str
    edition: Edition
    profile: str
    max_examples: int
    seed: int
    selected_rules: list[str] | None = Field(None, description="--rule selection; null: all")
    selected_providers: list[str] | None = Field(
        None, description="--provider selection: the providers certified; null: all")
    baseline: str | None = None
    target: TargetIdentity
    capabilities: dict[str, list[Capability]] = Field(
        description="the controls each provider advertises")
    started_at: datetime
    duration: float = Field(description="seconds")
    verdict: Verdict
    verdicts: list[CapabilityVerdict]
    counts: dict[str, int] = Field(description="number of rules per overall outcome")
    inexpressible: list[str] = Field(
        default_factory=list, description="the rules not applicable because the target "
        "cannot express an operation their checks need (UNSUPPORTED_OPERATION): each "
        "provider's reason says which")
    rules: list[RuleResult]
    checks: list[CheckRun]
    interrupted: bool = Field(False, description="stopped by Ctrl-C (SIGINT) before every "
                              "check ran: the rules left are not-run (exit code 130)")
    stopped_early: str | None = Field(None, description="why the run ended before every "
                                      "planned check ran (interrupted, deadline), or null")
    target_tools: list[str] = Field(
        default_factory=list, description="global tools the target brings itself (a plugin's), "
        "found on an empty deployment: left out of every view and model request the checks "
        "judge, and never called (docs/certify.md#tools-the-target-brings)")
    portable_variables: bool = Field(
        False, description="the target refused template variable names outside "
        f"{PORTABLE_VARIABLE_PATTERN} when asked before the first check, so the drawn cases "
        "named variables of that form only (docs/certify.md#generated-cases)")
    promises: PromisesReport | None = Field(
        None, description="certify --promises FILE: each promise's judged aspects (docs/"
        "promises.md); a broken or errored item fails the run. null: no promises file")
    timings: Timings | None = Field(
        None, description="certify --timings: time per check run, per campaign and per target "
        "operation (docs/certify.md#timings); absent from a run without --timings")
    dialect: Dialect = Field(description="the runtime's own terms the target declared and how "
                             "the run used them: restriction channels with their grammar and "
                             "declared variants, the prompt frame (docs/driver-api.md#dialect)")
    baseline_summary: BaselineSummary | None = Field(
        None, description="certify --baseline: the failing assertions it excused, and the "
        "ones it found new, stale or expired (docs/baseline.md); null: no baseline")

    @property
    def certified(self) -> bool:
        return self.verdict == Verdict.CERTIFIED

    @property
    def succeeded(self) -> bool:
        """Certified, or (partial run) every selected rule passed: exit code 0."""
        return self.verdict in (Verdict.CERTIFIED, Verdict.PASSED)

    @property
    def target_broken(self) -> bool:
        """True when the run failed only because the target crashed, hung or broke the
        protocol: decisive results are errors, none is a plain failure."""
        bad = [p.outcome for r in self.rules if r.level == Level.MUST for p in r.providers
               if p.outcome in BAD]
        bad += [r.outcome for r in self.rules if r.outcome == Outcome.UNEXPECTED_PASS]
        if self.promises is not None and self.promises.counts()["broken"]:
            return False  # a promise broken is a plain failure (exit 1)
        return Outcome.ERROR in bad and not {Outcome.FAIL, Outcome.UNEXPECTED_PASS} & set(bad)

    def rule(self, rule_id: str) -> RuleResult:
        return next(r for r in self.rules if r.id == rule_id)

    def stable(self) -> Certificate:
        """This certificate with every clock reading fixed and no timings: two runs of one
        kit, catalogue, target and seed give byte-identical reports of it
        (docs/certify.md#timings). The clock readings are ``started_at``, the durations of the
        run and of each check run, the promises' seconds, and the seconds and rates per second
        a check's note gives (the fuzz campaign's ``in 8.1 s (2500 steps/s)``)."""
        checks = [run.model_copy(update={"duration": 0.0, "note": _without_clock(run.note)})
                  for run in self.checks]
        update: dict[str, object] = {"started_at": STABLE_START, "duration": 0.0,
                                     "checks": checks, "timings": None}
        if self.promises is not None:
            update["promises"] = self.promises.model_copy(update={"seconds": 0.0})
        return self.model_copy(update=update)

    def inexpressible_summary(self) -> str | None:
        """``"N rule(s) not applicable: the target cannot express ..."`` with each rule's
        reasons (untrusted text: each report escapes it), or None when there are none."""
        if not self.inexpressible:
            return None
        listed = "; ".join(f"{r.id} ({r.reasons(Outcome.NOT_APPLICABLE)})"
                           for r in self.rules if r.id in self.inexpressible)
        return (f"{len(self.inexpressible)} rule(s) not applicable: the target cannot express "
                f"the operations their checks need: {listed}")

    def uncertified(self) -> list[str]:
        """``"PROVIDER CAPABILITY"`` of each verdict of a full run that judged nothing (every
        rule of it not applicable): reported so, never as certified."""
        if self.selected_rules is not None:
            return []
        return [f"{v.provider} {v.capability.value if v.capability else 'core rules'}"
                for v in self.verdicts if v.verdict == Verdict.NOT_RUN]

    def failing(self) -> list[RuleResult]:
        """Rules with something to fix, in catalogue order."""
        return [r for r in self.rules if r.failures and r.outcome != Outcome.EXPECTED_FAIL]


#: The ``started_at`` of :meth:`Certificate.stable`.
STABLE_START = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: A clock reading in a check's note: a number of seconds (``8.1 s``) or a rate per second
#: (``2500 steps/s``).
_CLOCK_IN_NOTE = re.compile(r"\b\d+(?:\.\d+)?(?= s\b| [a-z]+/s\b)")


def _without_clock(note: str | None) -> str | None:
    return None if note is None else _CLOCK_IN_NOTE.sub("0", note)


# --- assembly ----------------------------------------------------------------------------


class ErrorTarget(BaseModel):
    spec: str = Field(description="the TARGET argument that names it")


class RunError(BaseModel):
    code: str = Field(description="a stable error code (docs/certify.md#exit-codes)")
    message: str


class ErrorReport(BaseModel):
    """The JSON report of a run that ended before any check ran (an unreachable target, a
    protocol error in the handshake, a usage error, Ctrl-C): why, and the exit code. It names
    the kit and the catalogue like a certificate, and its ``verdict`` is ``ERROR``, which no
    certificate has, so no reader can take it for one."""

    schema_version: str = SCHEMA_VERSION
    kit: str = "subagent-tck"
    kit_version: str
    catalogue_hash: str
    target: ErrorTarget
    verdict: Literal["ERROR"] = "ERROR"
    exit_code: int
    error: RunError


def error_report(target_spec: str, code: str, message: str, exit_code: int) -> ErrorReport:
    return ErrorReport(kit_version=kit_version(), catalogue_hash=catalogue_hash(),
                       target=ErrorTarget(spec=target_spec), exit_code=exit_code,
                       error=RunError(code=code, message=message))


@dataclass(frozen=True)
class RunFacts:
    target_spec: str
    info: TargetInfo
    edition: Edition
    profile: str
    max_examples: int
    seed: int
    selected: list[str] | None
    baseline: Baseline | None
    started_at: datetime
    duration: float
    runs: list[CheckRun]
    providers: list[str] | None = None  # --provider: the providers certified (None: all)
    interrupted: bool = False
    stopped_early: str | None = None
    target_tools: tuple[str, ...] = ()  # the target's own global tools, not judged
    portable_variables: bool = False  # drawn variable names of [a-z][a-z0-9_]* only
    timings: Timings | None = None  # certify --timings
    #: per check, the partitions it declares; per check run, what it drew of them
    partitions: Mapping[str, Sequence[DeclaredPartition]] = field(default_factory=dict)
    drawn: Sequence[DrawnRun] = ()


def kit_version() -> str:
    try:
        return importlib.metadata.version("subagent-tck")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "0+unknown"


def merge(evidence: Sequence[Evidence]) -> Evidence:
    """Combine what several checks found for one rule and provider: any failure wins, then
    any pass, then a check stopped at an operation the target cannot express (not applicable),
    then a check that never verified the rule (not-run); a cell no check filled is not-run."""
    if not evidence:
        return Evidence(Outcome.NOT_RUN, "no check decided this rule")
    failures = [f for e in evidence for f in e.failures]
    outcomes = {e.outcome for e in evidence}
    if not outcomes & {Outcome.FAIL, Outcome.ERROR, Outcome.PASS} and any(
            e.inexpressible for e in evidence):
        # the check that needed an operation the target cannot express outranks a check that
        # ran but had no case of this rule (docs/driver-api.md#unsupported-operations)
        reasons = list(dict.fromkeys(e.reason for e in evidence if e.inexpressible))
        return Evidence(Outcome.NOT_APPLICABLE, "; ".join(reasons), failures, True)
    for outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.PASS, Outcome.NOT_RUN):
        if outcome in outcomes:
            reasons = [e.reason for e in evidence if e.outcome == outcome and e.reason]
            return Evidence(outcome, reasons[0] if reasons else "", failures)
    reasons = list(dict.fromkeys(e.reason for e in evidence if e.reason))
    return Evidence(Outcome.NOT_APPLICABLE, "; ".join(reasons), failures,
                    any(e.inexpressible for e in evidence))


def with_assertion(failure: Failure) -> Failure:
    """``failure`` with its assertion (docs/baseline.md#the-fingerprint): a failure the runner
    made (a timeout, a crash) has none yet, and is one of the check as a whole."""
    if failure.assertion is not None:
        return failure
    made = fingerprint.make(failure.rule, failure.check, failure.message, failure.expected,
                            failure.observed, error=failure.error)
    return failure.model_copy(update={"assertion": made})


def _apply_baseline(facts: RunFacts, rules: Sequence[Rule],
                    merged: Mapping[tuple[str, str | None], Evidence],
                    ) -> tuple[dict[tuple[str, str | None], Evidence], BaselineSummary | None]:
    """Every cell with the baseline applied (:mod:`.baseline_judge`), judged on the run's
    date, and what the baseline excused, found new, stale or expired."""
    if facts.baseline is None:
        return dict(merged), None
    return judge(facts.baseline, merged, {r.id: r.title for r in rules},
                 facts.started_at.date())


def replay_command(target_spec: str, rule_id: str, seed: int, edition: Edition,
                   profile: str, providers: Sequence[str] | None = None) -> str:
    parts = ["subagent-tck", "certify", "--target", target_spec, "--rule", rule_id,
             "--seed", str(seed)]
    for provider in providers or ():
        parts += ["--provider", provider]
    if edition != DEFAULT_EDITION:
        parts += ["--edition", edition.value]
    if profile != "ci":
        parts += ["--profile", profile]
    return shlex.join(parts)


def _verdicts(facts: RunFacts, rules: Sequence[Rule],
              cells: Mapping[tuple[str, str | None], Evidence]) -> list[CapabilityVerdict]:
    out = []
    for provider in facts.info.providers:
        if facts.providers is not None and provider.name not in facts.providers:
            continue  # not certified in this run (--provider)
        advertised = [c for c in CONTROLS if c in provider.capabilities]
        for capability in [None, *advertised]:
            blocking = []
            judged = judged_own = considered = unasked = False
            for rule in rules:
                if rule.level != Level.MUST or rule.capability not in (None, capability):
                    continue
                if facts.selected is not None and rule.id not in facts.selected:
                    continue  # a partial run judges only what it selected (Verdict.PASSED)
                for key in (provider.name, None):
                    cell = cells.get((rule.id, key))
                    if cell is not None and cell.outcome in BAD:
                        blocking.append(f"{rule.id} {cell.outcome.value}")
                    judged = judged or (cell is not None and cell.outcome in RAN)
                    # a capability whose own rules the target could not be asked (every one
                    # not applicable, some because it cannot express their operations)
                    # certifies nothing of it, whatever the core rules say
                    own = cell is not None and rule.capability == capability
                    considered = considered or cell is not None
                    unasked = unasked or (own and cell is not None and cell.inexpressible)
                    judged_own = judged_own or (own and cell is not None
                                                and cell.outcome in RAN)
            if blocking:
                verdict = Verdict.FAILED
            elif facts.selected is None and ((unasked and not judged_own)
                                             or (considered and not judged)):
                verdict = Verdict.NOT_RUN  # every rule not applicable: nothing certified
            elif facts.selected is None:
                verdict = Verdict.CERTIFIED
            else:  # a partial run never certifies; one that judged nothing here passed nothing
                verdict = Verdict.PASSED if judged else Verdict.NOT_RUN
            out.append(CapabilityVerdict(provider=provider.name, capability=capability,
                                         verdict=verdict, blocking=list(dict.fromkeys(blocking))))
    return out


def assemble(facts: RunFacts, rules: Sequence[Rule],
             table: Mapping[tuple[str, str | None], Sequence[Evidence]],
             promises: PromisesReport | None = None) -> Certificate:
    """Decide every outcome and verdict of a run from the evidence its checks gathered (and
    the promises checked with ``--promises``: one not kept fails the run)."""
    merged = {key: merge(evidence) for key, evidence in table.items()}
    made: dict[int, Failure] = {}  # one failure filed in several cells stays one
    for cell in merged.values():
        cell.failures = [made.setdefault(id(f), with_assertion(f)) for f in cell.failures]
    cells, summary = _apply_baseline(facts, rules, merged)
    drawn = records(facts.partitions, facts.drawn)
    results = []
    for rule in rules:
        mine = [(key, cell) for (rule_id, key), cell in cells.items() if rule_id == rule.id]
        overall = next((o for o in SEVERITY if any(c.outcome == o for _, c in mine)),
                       Outcome.NOT_RUN)
        failing = overall in (Outcome.FAIL, Outcome.ERROR, Outcome.UNEXPECTED_PASS)
        results.append(RuleResult(
            id=rule.id, title=rule.title, level=rule.level, family=rule.family,
            capability=rule.capability, component=rule.component, edition=rule.edition,
            outcome=overall,
            providers=[ProviderOutcome(provider=key, outcome=c.outcome, reason=c.reason,
                                       inexpressible=c.inexpressible) for key, c in mine],
            # one failure filed in several provider cells (a supplementary check's) once
            failures=list({id(f): f for _, c in mine for f in c.failures}.values()),
            replay=replay_command(facts.target_spec, rule.id, facts.seed, facts.edition,
                                  facts.profile, facts.providers) if failing else None,
            partitions=drawn.get(rule.id, []),
        ))
    verdicts = _verdicts(facts, rules, cells)
    failed = (not verdicts or any(v.verdict == Verdict.FAILED for v in verdicts)
              or any(r.outcome == Outcome.UNEXPECTED_PASS for r in results)
              or (summary is not None and bool(summary.expired))  # a SHOULD rule's too
              or (promises is not None and not promises.kept))
    judged = any(c.outcome in RAN for c in cells.values())
    if failed:
        verdict = Verdict.FAILED
    elif not judged:  # every rule not applicable (or not run): nothing certified, no pass
        verdict = Verdict.NOT_RUN
    elif facts.selected is None:
        verdict = Verdict.CERTIFIED
    else:
        verdict = (Verdict.PASSED if any(v.verdict == Verdict.PASSED for v in verdicts)
                   else Verdict.NOT_RUN)
    counts = {o.value: sum(r.outcome == o for r in results) for o in Outcome}
    inexpressible = [r.id for r in results if r.outcome == Outcome.NOT_APPLICABLE
                     and any(p.inexpressible for p in r.providers)]
    return Certificate(
        kit_version=kit_version(), catalogue_hash=catalogue_hash(), edition=facts.edition,
        profile=facts.profile, max_examples=facts.max_examples, seed=facts.seed,
        selected_rules=facts.selected, selected_providers=facts.providers,
        baseline=facts.baseline.path if facts.baseline is not None else None,
        target=TargetIdentity(spec=facts.target_spec, info=facts.info),
        capabilities={p.name: list(p.capabilities) for p in facts.info.providers},
        started_at=facts.started_at, duration=round(facts.duration, 4),
        verdict=verdict, verdicts=verdicts,
        counts=counts, inexpressible=inexpressible, rules=results, checks=facts.runs,
        interrupted=facts.interrupted, stopped_early=facts.stopped_early,
        target_tools=list(facts.target_tools), portable_variables=facts.portable_variables,
        promises=promises, timings=facts.timings, baseline_summary=summary,
        dialect=dialect_of(facts.info.restrictionChannels, facts.info.promptFrame,
                           facts.edition, _entry_points(facts.runs)),
    )


def _entry_points(runs: Sequence[CheckRun]) -> dict[str, list[str]]:
    """Per check run (``check`` or ``check [provider]``), the channels it built through."""
    out: dict[str, list[str]] = {}
    for run in runs:
        if run.entry_points:
            name = run.check if run.provider is None else f"{run.check} [{run.provider}]"
            out.setdefault(name, []).extend(run.entry_points)
    return out


def json_schema() -> str:
    """The certificate's JSON Schema, as committed in ``certificate.schema.json``."""
    # One document per run: a certificate, or the error report of a run that ended before any
    # check ran; the two are told apart by ``verdict`` (``ERROR`` is the error report's only).
    schema = TypeAdapter(Certificate | ErrorReport).json_schema()
    schema["title"] = "subagent-tck certificate or error report"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(json_schema(), end="")
