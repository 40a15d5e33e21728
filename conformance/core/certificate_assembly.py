"""From a run's evidence to its certificate (docs/architecture.md): outcomes, verdicts and the
command that replays a failing rule.

Outcomes are per rule and provider; a rule's overall outcome is the worst over providers
(not-applicable only when it is not applicable anywhere). A provider's capability is
CERTIFIED only when every MUST rule of that capability and every core MUST rule (capability
None: CA, FR, the DE domain rules, EN of the edition, ST when shipped) passed or is a
baselined expected-fail for that provider (CA-04: one failing rule fails the capability, never
a partial pass). SHOULD rules are reported, never decisive. A MUST rule that applies but did
not run certifies nothing.
"""

from __future__ import annotations

import importlib.metadata
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from subagent_tck.spec import CONTROLS, DEFAULT_EDITION, Edition, Level, Rule, catalogue_hash

from . import fingerprint
from .baseline_judge import BaselineSummary, judge
from .certificate import (
    CapabilityVerdict,
    Certificate,
    CheckRun,
    ErrorReport,
    ErrorTarget,
    Jobs,
    ProviderOutcome,
    RuleResult,
    RunError,
    TargetIdentity,
    Timings,
    Verdict,
)
from .dialect import dialect_of
from .drawn import DeclaredPartition, DrawnRun, records
from .outcome import BAD, RAN, Evidence, Failure, Outcome
from .promises_report import PromisesReport
from .protocol import TargetInfo

if TYPE_CHECKING:
    from .baseline import Baseline

#: From worst to best: a rule's overall outcome is the first one any provider has.
SEVERITY: tuple[Outcome, ...] = (
    Outcome.UNEXPECTED_PASS, Outcome.FAIL, Outcome.ERROR, Outcome.NOT_RUN,
    Outcome.EXPECTED_FAIL, Outcome.PASS, Outcome.NOT_APPLICABLE,
)


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
    jobs: Jobs | None = None  # certify --jobs N above 1
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
              or (promises is not None and not promises.kept)
              # a partial run asked about its rules: a selected SHOULD rule that fails fails it
              # (its printed replay must reproduce the failure), where a whole run reports it
              # and certifies
              or (facts.selected is not None
                  and any(r.outcome == Outcome.FAIL and r.id in facts.selected for r in results)))
    judged = any(c.outcome in RAN for c in cells.values())
    if failed:
        verdict = Verdict.FAILED
    elif not judged:  # every rule not applicable (or not run): nothing certified, no pass
        verdict = Verdict.NOT_RUN
    elif facts.selected is None:
        verdict = Verdict.CERTIFIED
    else:  # a partial run that judged a selected rule and failed none passed it, a SHOULD
        # rule's alone too (the capability verdicts weigh MUST rules only)
        verdict = Verdict.PASSED
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
        promises=promises, timings=facts.timings, jobs=facts.jobs, baseline_summary=summary,
        dialect=dialect_of(facts.info.restrictionChannels, facts.info.promptFrame,
                           facts.edition, _entry_points(facts.runs), facts.info.toolNameFolding),
    )


def _entry_points(runs: Sequence[CheckRun]) -> dict[str, list[str]]:
    """Per check run (``check`` or ``check [provider]``), the channels it built through."""
    out: dict[str, list[str]] = {}
    for run in runs:
        if run.entry_points:
            name = run.check if run.provider is None else f"{run.check} [{run.provider}]"
            out.setdefault(name, []).extend(run.entry_points)
    return out
