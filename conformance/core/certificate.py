"""The certificate: what a run found, as a versioned JSON document (docs/architecture.md).

The document's models only: per rule and provider an outcome, per provider and capability a
verdict, the check runs, timings and jobs, and the error report of a run that ended before any
check ran. How a run's evidence becomes these outcomes and verdicts is
:mod:`.certificate_assembly`'s.

The committed JSON Schema ``certificate.schema.json`` is generated from these models::

    python -m subagent_tck.conformance.core.certificate > conformance/core/certificate.schema.json
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field, TypeAdapter

from subagent_tck.spec import Capability, Component, Edition, Family, Level

from .baseline_judge import BaselineSummary
from .dialect import Dialect
from .drawn import PartitionDrawn
from .outcome import BAD, Failure, Outcome
from .promises_report import PromisesReport
from .protocol import TargetInfo

SCHEMA_VERSION = "1"
REGENERATE = ("python -m subagent_tck.conformance.core.certificate > "
              "conformance/core/certificate.schema.json")


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

    def reasons(self, *outcomes: Outcome, limit: int | None = None) -> str:
        """The reasons of its per-provider outcomes (of ``outcomes``, or all), each once:
        ``"spawn, fork: edition request-controls only"``; with ``limit``, each reason cut to
        that many characters (a terminal's summary line: the reports keep them whole)."""
        grouped: dict[str, list[str]] = {}
        for p in self.providers:
            if p.reason and (not outcomes or p.outcome in outcomes):
                grouped.setdefault(p.reason, []).append(p.provider or "target")
        return "; ".join(f"{', '.join(who)}: {_cut(why, limit)}" for why, who in grouped.items())


def _cut(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[:limit - 3].rstrip() + "..."


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


class Jobs(BaseModel):
    """``certify --jobs N`` above 1: how many check runs ran at once (docs/certify.md#jobs).
    How a run ran, never what it found: the same seed gives the same certificate whatever N."""

    asked: int = Field(ge=1, description="--jobs N")
    used: int = Field(ge=0, description="lanes that ran check runs at once: worker processes "
                      "that loaded the target (1: one after another, in one process)")
    why: str | None = Field(None, description="why fewer ran at once than asked (a target "
                            "that runs one deployment at a time, a worker that could not "
                            "start), or null")


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
    jobs: Jobs | None = Field(
        None, description="certify --jobs N above 1: how many check runs ran at once, and why "
        "fewer than asked (docs/certify.md#jobs); absent from a run of one job")
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
        """This certificate with every clock reading fixed and no timings or jobs: two runs of
        one kit, catalogue, target and seed give byte-identical reports of it, whatever
        ``--jobs`` (docs/certify.md#timings, docs/certify.md#jobs). The clock readings are
        ``started_at``, the durations of the run and of each check run, the promises' seconds,
        and the seconds and rates per second a check's note gives (the fuzz campaign's
        ``in 8.1 s (2500 steps/s)``)."""
        checks = [run.model_copy(update={"duration": 0.0, "note": _without_clock(run.note)})
                  for run in self.checks]
        update: dict[str, object] = {"started_at": STABLE_START, "duration": 0.0,
                                     "checks": checks, "timings": None, "jobs": None}
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


def json_schema() -> str:
    """The certificate's JSON Schema, as committed in ``certificate.schema.json``."""
    # One document per run: a certificate, or the error report of a run that ended before any
    # check ran; the two are told apart by ``verdict`` (``ERROR`` is the error report's only).
    schema = TypeAdapter(Certificate | ErrorReport).json_schema()
    schema["title"] = "subagent-tck certificate or error report"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(json_schema(), end="")
