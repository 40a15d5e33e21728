"""Two certificates compared: what changed from OLD to NEW (docs/baseline.md#diff).

Rule outcomes (overall and per provider), the failing assertions that started or stopped
failing (by fingerprint: :mod:`.fingerprint`), the capabilities each provider advertises and
their verdicts, the target's dialect when the certificates carry one, and timing. Something
got **worse** when the verdict or a capability's verdict went down, a rule's outcome went down
(``pass`` to ``expected-fail`` is down too: a new known failure), an assertion started failing,
or a provider stopped advertising a capability: ``diff`` exits 1 then.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from .baseline_judge import BASELINE_CHECK
from .certificate import Certificate, Verdict
from .certificate_assembly import with_assertion
from .fingerprint import Assertion
from .outcome import Outcome

#: How bad an outcome is; a change to a higher rank is worse. Not applicable is no judgement
#: (neither better nor worse than a pass).
RANK: Mapping[Outcome, int] = {
    Outcome.PASS: 0, Outcome.NOT_APPLICABLE: 0, Outcome.EXPECTED_FAIL: 1, Outcome.NOT_RUN: 2,
    Outcome.ERROR: 3, Outcome.FAIL: 3, Outcome.UNEXPECTED_PASS: 3,
}
VERDICT_RANK: Mapping[str, int] = {
    Verdict.CERTIFIED.value: 0, Verdict.PASSED.value: 0, Verdict.NOT_RUN.value: 1,
    Verdict.FAILED.value: 2,
}
#: How many check runs whose time changed most the timing part lists.
SLOWEST = 5


class Side(BaseModel):
    """What identifies one certificate of the two."""

    target: str
    name: str
    version: str
    kit_version: str
    catalogue_hash: str
    edition: str
    seed: int
    verdict: str
    duration: float


class OutcomeChange(BaseModel):
    rule: str
    title: str
    provider: str | None = Field(description="null: the rule's overall outcome")
    old: Outcome | None = Field(description="null: the rule had no such result")
    new: Outcome | None
    worse: bool


class AssertionChange(BaseModel):
    rule: str
    provider: str | None
    assertion: Assertion
    change: str = Field(description="started or stopped failing")


class CapabilityChange(BaseModel):
    provider: str
    capability: str = Field(description="a control, or 'core rules'")
    old: str | None = Field(description="its verdict (advertised), or null: not advertised")
    new: str | None
    worse: bool


class TimingChange(BaseModel):
    check: str
    old: float
    new: float


class CertificateDiff(BaseModel):
    old: Side
    new: Side
    worse: bool
    why: list[str] = Field(description="what got worse, one line each")
    rules: list[OutcomeChange]
    assertions: list[AssertionChange]
    capabilities: list[CapabilityChange]
    dialect: dict[str, Any] | None = Field(
        None, description="the dialect sections when they differ ({old, new}); null: equal "
        "or absent from both")
    timing: list[TimingChange] = Field(description=f"the {SLOWEST} check runs whose time "
                                       "changed most")
    catalogue_changed: bool


def _side(cert: Certificate) -> Side:
    info = cert.target.info
    return Side(target=cert.target.spec, name=info.name, version=info.version,
                kit_version=cert.kit_version, catalogue_hash=cert.catalogue_hash,
                edition=cert.edition.value, seed=cert.seed, verdict=cert.verdict.value,
                duration=cert.duration)


def _cells(cert: Certificate) -> dict[tuple[str, str | None], Outcome]:
    out: dict[tuple[str, str | None], Outcome] = {}
    for rule in cert.rules:
        out[rule.id, None] = rule.outcome
        for cell in rule.providers:
            if cell.provider is not None:
                out[rule.id, cell.provider] = cell.outcome
    return out


def _assertions(cert: Certificate) -> dict[tuple[str, str | None, str], Assertion]:
    out: dict[tuple[str, str | None, str], Assertion] = {}
    for rule in cert.rules:
        for failure in rule.failures:
            if failure.check == BASELINE_CHECK:
                continue
            assertion = with_assertion(failure).assertion
            assert assertion is not None
            out.setdefault((rule.id, failure.provider, assertion.fingerprint), assertion)
    return out


def _verdicts(cert: Certificate) -> dict[tuple[str, str], str]:
    out = {(v.provider, v.capability.value if v.capability else "core rules"): v.verdict.value
           for v in cert.verdicts}
    for provider, capabilities in cert.capabilities.items():
        for capability in capabilities:
            out.setdefault((provider, capability.value), "advertised")
    return out


def _timing(old: Certificate, new: Certificate) -> list[TimingChange]:
    def per_check(cert: Certificate) -> dict[str, float]:
        out: dict[str, float] = {}
        for run in cert.checks:
            label = run.check + (f" [{run.provider}]" if run.provider else "")
            out[label] = out.get(label, 0.0) + run.duration
        return out

    before, after = per_check(old), per_check(new)
    changes = [TimingChange(check=c, old=round(before.get(c, 0.0), 3),
                            new=round(after.get(c, 0.0), 3)) for c in {*before, *after}]
    changes.sort(key=lambda t: (-abs(t.new - t.old), t.check))
    return changes[:SLOWEST]


def compare(old: Certificate, new: Certificate, old_raw: Mapping[str, Any] | None = None,
            new_raw: Mapping[str, Any] | None = None) -> CertificateDiff:
    """What changed from ``old`` to ``new`` (``*_raw``: their JSON, for sections this kit does
    not model, the dialect)."""
    why: list[str] = []
    titles = {r.id: r.title for r in [*old.rules, *new.rules]}
    before, after = _cells(old), _cells(new)
    rules = []
    for key in sorted({*before, *after}, key=lambda k: (k[0], k[1] or "")):
        a, b = before.get(key), after.get(key)
        if a == b:
            continue
        worse = b is not None and RANK[b] > (RANK[a] if a is not None else 0)
        rules.append(OutcomeChange(rule=key[0], title=titles.get(key[0], ""), provider=key[1],
                                   old=a, new=b, worse=worse))
        if worse and key[1] is None:
            why.append(f"{key[0]}: {a.value if a else 'absent'} -> {b.value if b else 'absent'}")
    failed_before, failed_after = _assertions(old), _assertions(new)
    assertions = [AssertionChange(rule=k[0], provider=k[1], assertion=a, change="started")
                  for k, a in failed_after.items() if k not in failed_before]
    assertions += [AssertionChange(rule=k[0], provider=k[1], assertion=a, change="stopped")
                   for k, a in failed_before.items() if k not in failed_after]
    started = sum(1 for a in assertions if a.change == "started")
    if started:
        why.append(f"{started} assertion(s) started failing")
    v_before, v_after = _verdicts(old), _verdicts(new)
    capabilities = []
    for key in sorted({*v_before, *v_after}):
        a_v, b_v = v_before.get(key), v_after.get(key)
        if a_v == b_v:
            continue
        worse = b_v is None or VERDICT_RANK.get(b_v, 0) > VERDICT_RANK.get(a_v or "", 0)
        capabilities.append(CapabilityChange(provider=key[0], capability=key[1], old=a_v,
                                             new=b_v, worse=worse))
        if worse:
            why.append(f"provider {key[0]} {key[1]}: {a_v or 'absent'} -> {b_v or 'absent'}")
    if VERDICT_RANK[new.verdict.value] > VERDICT_RANK[old.verdict.value]:
        why.insert(0, f"verdict {old.verdict.value} -> {new.verdict.value}")
    dialects = ((old_raw or {}).get("dialect"), (new_raw or {}).get("dialect"))
    return CertificateDiff(
        old=_side(old), new=_side(new), worse=bool(why), why=why, rules=rules,
        assertions=assertions, capabilities=capabilities,
        dialect=None if dialects[0] == dialects[1] else {"old": dialects[0], "new": dialects[1]},
        timing=_timing(old, new), catalogue_changed=old.catalogue_hash != new.catalogue_hash)
