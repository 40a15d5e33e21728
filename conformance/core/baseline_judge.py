"""What a baseline makes of a run (docs/baseline.md#what-a-run-makes-of-it).

Every failing assertion of a rule's result for a provider (a *cell*) is **excused** by an entry
of its rule (and provider) that names its fingerprint, or that excuses the whole rule
(``scope = "rule"``, counted apart). A failing assertion no entry names is **new**, even inside
a listed rule: its cell stays failed. A cell whose failures are all excused is
``expected-fail``. An entry past its ``until`` date is **expired**: it excuses nothing, and the
assertions it named fail the run. A named assertion that did not fail is **stale**: the cell
it belongs to is ``unexpected-pass`` (a fixed bug cannot hide behind an old entry).

Two kinds of assertion are samples of a seed, not fixtures of it, and are judged so:

- a **drawn** case's assertion (a property's shrunk example: which of its assertions fail
  depends on what was drawn): excused as well by an entry that names a drawn assertion of the
  same check, and stale only when its check failed nothing of the rule in the entry's cells,
  else *not drawn this run* (reported, not failing);
- the fuzz **campaign**'s finding (the campaign stops at its first divergence, a different
  one at each seed): excused as well by an entry of its rule that excuses another failure of
  the run (the rule is known to be broken; which of its faults the campaign met first is the
  seed's), and stale only when nothing of the rule failed in the entry's cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from pydantic import BaseModel, Field

from .baseline import Baseline, BaselineEntry, Pinned
from .fingerprint import Assertion
from .outcome import Evidence, Failure, Outcome

Key = tuple[str, "str | None"]
#: The check name of the failures a baseline adds (a stale entry): never a target's assertion.
BASELINE_CHECK = "baseline"


class EntryRef(BaseModel):
    """Which entry of the baseline: its number, line, rule, provider and reason."""

    number: int
    line: int
    rule: str
    provider: str | None
    reason: str
    tracking: str | None = None
    until: date | None = None
    whole_rule: bool = False


class ExcusedAssertion(BaseModel):
    rule: str
    provider: str | None = Field(description="the cell's provider (null: the whole target)")
    entry: int
    assertion: Assertion
    sampled: bool = Field(False, description="a sample no entry names: a drawn case's "
                          "assertion excused because its entry names a drawn assertion of the "
                          "same check, or the campaign's finding because its entry excuses "
                          "another failure of the run")


class NewAssertion(BaseModel):
    rule: str
    provider: str | None
    assertion: Assertion
    listed: bool = Field(description="an entry lists this rule (and provider): the assertion "
                         "failed inside a listed rule")


class StaleAssertion(BaseModel):
    rule: str
    provider: str | None = Field(description="the entry's provider (null: any)")
    entry: int
    fingerprint: str
    description: str = Field(description="what the entry says the assertion is")
    why: str


class UnseenAssertion(BaseModel):
    rule: str
    entry: int
    fingerprint: str
    description: str
    why: str


class BaselineSummary(BaseModel):
    """What the run's baseline excused, and what it found stale, expired or new."""

    path: str
    catalogue_hash: str | None = Field(None, description="the catalogue the baseline was "
                                       "written against, when it says")
    entries: list[EntryRef]
    excused: list[ExcusedAssertion] = Field(default_factory=list)
    whole_rule: list[ExcusedAssertion] = Field(
        default_factory=list, description="failures excused by entries with scope = rule "
        "(counted apart: nothing pinned)")
    new: list[NewAssertion] = Field(default_factory=list)
    stale: list[StaleAssertion] = Field(default_factory=list)
    expired: list[EntryRef] = Field(default_factory=list)
    unseen: list[UnseenAssertion] = Field(
        default_factory=list, description="drawn or campaign assertions an entry names that "
        "this seed did not meet while their check (or rule) still failed: not stale")

    @property
    def holds(self) -> bool:
        """Nothing new, stale or expired."""
        return not (self.new or self.stale or self.expired)

    def counts(self) -> dict[str, int]:
        return {"excused": len(self.excused), "whole_rule": len(self.whole_rule),
                "new": len(self.new), "stale": len(self.stale), "expired": len(self.expired),
                "unseen": len(self.unseen)}


def ref(entry: BaselineEntry) -> EntryRef:
    return EntryRef(number=entry.number, line=entry.line, rule=entry.rule,
                    provider=entry.provider, reason=entry.reason, tracking=entry.tracking,
                    until=entry.until, whole_rule=entry.whole_rule)


def _own(failure: Failure) -> Assertion | None:
    """The target's assertion of a failure (None: one the baseline itself added)."""
    return None if failure.check == BASELINE_CHECK else failure.assertion


def judge(baseline: Baseline, cells: Mapping[Key, Evidence], titles: Mapping[str, str],
          today: date) -> tuple[dict[Key, Evidence], BaselineSummary]:
    """The cells with the baseline applied, and what it excused, found stale, expired, new."""
    summary = BaselineSummary(path=baseline.path, catalogue_hash=baseline.catalogue_hash,
                              entries=[ref(e) for e in baseline.entries])
    live = [e for e in baseline.entries if not e.expired(today)]
    summary.expired = [ref(e) for e in baseline.entries if e.expired(today)]
    out = {key: Evidence(c.outcome, c.reason, list(c.failures), c.inexpressible)
           for key, c in cells.items()}
    active: set[int] = set()  # entries that excused a failure that is not a sample
    sampled: list[tuple[Key, Failure, Assertion]] = []
    unexcused: dict[Key, list[Failure]] = {}
    used: dict[Key, list[BaselineEntry]] = {}
    for key, cell in out.items():
        if cell.outcome not in (Outcome.FAIL, Outcome.ERROR):
            continue
        for failure in cell.failures:
            assertion = _own(failure)
            if assertion is None:
                continue
            here = [e for e in live if e.covers(key[0], failure.provider)]
            entry = next((e for e in here if e.whole_rule or e.names(assertion.fingerprint)),
                         None)
            if entry is None and assertion.case == "campaign":
                # the observation belongs to other rules too: an entry of one of them may
                # excuse it as a sample (sample_excuser), never by its fingerprint
                here = [e for e in live if any(e.covers(r, failure.provider)
                                               for r in (key[0], *failure.also))]
            if entry is not None:
                record = ExcusedAssertion(rule=key[0], provider=failure.provider,
                                          entry=entry.number, assertion=assertion)
                (summary.whole_rule if entry.whole_rule else summary.excused).append(record)
                used.setdefault(key, []).append(entry)
                if assertion.case != "campaign":
                    active.add(entry.number)
            elif assertion.case in ("campaign", "drawn") and here:
                sampled.append((key, failure, assertion))
            else:
                unexcused.setdefault(key, []).append(failure)
    for key, failure, assertion in sampled:
        entry = sample_excuser(live, key[0], failure.provider, assertion, active,
                               also=failure.also)
        if entry is None:
            unexcused.setdefault(key, []).append(failure)
            continue
        summary.excused.append(ExcusedAssertion(rule=key[0], provider=failure.provider,
                                                entry=entry.number, assertion=assertion,
                                                sampled=True))
        used.setdefault(key, []).append(entry)
    listed = {(e.rule, e.provider) for e in baseline.entries}
    lapsed = [e for e in baseline.entries if e.expired(today)]
    for key, failures in unexcused.items():
        for failure in failures:
            assertion = _own(failure)
            assert assertion is not None
            if any(e.covers(key[0], failure.provider) and (
                    e.whole_rule or e.names(assertion.fingerprint)) for e in lapsed):
                continue  # what an expired entry names: reported as expired, not as new
            summary.new.append(NewAssertion(
                rule=key[0], provider=failure.provider, assertion=assertion,
                listed=(key[0], None) in listed or (key[0], failure.provider) in listed))
    for key, cell in out.items():
        if cell.outcome in (Outcome.FAIL, Outcome.ERROR) and key not in unexcused and key in used:
            reasons = dict.fromkeys(e.reason for e in used[key])
            out[key] = Evidence(Outcome.EXPECTED_FAIL, "; ".join(reasons), cell.failures)
        elif key in unexcused and key in used:
            cell.reason = (f"{len(unexcused[key])} failing assertion(s) no entry of baseline "
                           f"{baseline.path} names" + (f"; {cell.reason}" if cell.reason else ""))
    _stale(baseline, live, out, titles, summary)
    _expired(baseline, out, titles, today)
    return out, summary


def sample_excuser(entries: Sequence[BaselineEntry], rule: str, provider: str | None,
                   assertion: Assertion, active: set[int], also: Sequence[str] = ()
                   ) -> BaselineEntry | None:
    """The entry that excuses a sample no entry names: for a drawn case's assertion, one that
    names a drawn assertion of the same check (the property is known to fail; which of its
    assertions the seed's shrunk case fails is the seed's); for the campaign's finding, one
    that excused another failure of the run (``active``): of its rule, or of a rule in
    ``also`` (the others its observation belongs to: the campaign files it under the first)
    naming an assertion that went wrong the same way (its ``way``: "refused CODE", ...)."""
    for entry in entries:
        own = entry.covers(rule, provider)
        # of another rule the observation belongs to: one that fails that rule the same way
        # (a fixed assertion of the entry wrong as the finding is: "refused CODE", ...)
        other = assertion.case == "campaign" and not own and any(
            entry.covers(r, provider) for r in also) and any(
            p.way == assertion.way for p in entry.assertions)
        if not (own or other):
            continue
        if assertion.case == "drawn" and any(p.case == "drawn" and p.check == assertion.check
                                             for p in entry.assertions):
            return entry
        if assertion.case == "campaign" and entry.number in active:
            return entry
    return None


def _cells_of(entry: BaselineEntry, out: Mapping[Key, Evidence]) -> list[Key]:
    """The cells an entry speaks of: its rule's for its provider (all, without one) and the
    rule's target-wide cell, where a check that binds the whole target files failures."""
    return sorted((k for k in out if k[0] == entry.rule
                   and (entry.provider is None or k[1] in (entry.provider, None))),
                  key=lambda k: k[1] or "")


def _ran(cell: Evidence) -> bool:
    return cell.outcome in (Outcome.PASS, Outcome.FAIL, Outcome.ERROR, Outcome.EXPECTED_FAIL)


def _stale(baseline: Baseline, live: Sequence[BaselineEntry], out: dict[Key, Evidence],
           titles: Mapping[str, str], summary: BaselineSummary) -> None:
    """Judge every live entry's named assertions against what failed in its cells."""
    for entry in live:
        keys = _cells_of(entry, out)
        ran = [k for k in keys if _ran(out[k])]
        for key in keys:
            if out[key].outcome == Outcome.NOT_RUN:  # a baseline never excuses a not-run
                note = (f"baseline {baseline.path} {entry.where} lists it as expected to fail, "
                        "but it did not run, so the entry decides nothing")
                cell = out[key]
                cell.reason = f"{cell.reason}; {note}" if cell.reason else note
        if not ran:
            continue  # not applicable or not run here: the entry decides nothing
        seen = [a for k in ran for f in out[k].failures
                if (a := _own(f)) is not None and entry.covers(k[0], f.provider)]
        unseen, stale = sort_pinned(entry, seen)
        summary.unseen += [UnseenAssertion(rule=entry.rule, entry=entry.number,
                                           fingerprint=p.fingerprint, description=p.describe(),
                                           why=why) for p, why in unseen]
        for pinned, why in stale:
            _mark_stale(baseline, entry, pinned, why, ran, out, titles, summary)


def sort_pinned(entry: BaselineEntry, seen: Sequence[Assertion],
                ) -> tuple[list[tuple[Pinned, str]], list[tuple[Pinned | None, str]]]:
    """Of the assertions ``entry`` names that are not among ``seen`` (what failed in its
    cells): the samples this seed did not meet (not stale), and the stale ones, each with why
    (None: a whole-rule entry whose rule passed)."""
    fingerprints = {a.fingerprint for a in seen}
    checks = {a.check for a in seen}
    unseen: list[tuple[Pinned, str]] = []
    stale: list[tuple[Pinned | None, str]] = []
    if entry.whole_rule and not seen:
        stale.append((None, "passed"))
    for pinned in entry.assertions:
        if pinned.fingerprint in fingerprints:
            continue
        if pinned.case == "campaign" and seen:
            unseen.append((pinned, "the campaign met another divergence of the rule at this "
                           "seed"))
        elif pinned.case == "drawn" and pinned.check in checks:
            unseen.append((pinned, f"check {pinned.check} still fails the rule; the case this "
                           "seed drew did not fail this way"))
        else:
            stale.append((pinned, "passed" if not seen
                          else "no longer occurs (the rule fails in other ways)"))
    return unseen, stale


def _mark_stale(baseline: Baseline, entry: BaselineEntry, pinned: Pinned | None, why: str,
                ran: Sequence[Key], out: dict[Key, Evidence], titles: Mapping[str, str],
                summary: BaselineSummary) -> None:
    what = "the whole rule" if pinned is None else f"assertion {pinned.describe()}"
    message = (f"baseline {baseline.path} {entry.where} ({entry.reason!r}) excuses {what}, but "
               f"it {why}: remove it (`subagent-tck baseline update {baseline.path} "
               "CERTIFICATE.json` drops it)")
    summary.stale.append(StaleAssertion(
        rule=entry.rule, provider=entry.provider, entry=entry.number,
        fingerprint=pinned.fingerprint if pinned else "", why=why,
        description=pinned.describe() if pinned else "the whole rule (scope = \"rule\")"))
    # the cell where it would have failed: the provider's, else the first that ran
    key = (entry.rule, entry.provider) if (entry.rule, entry.provider) in ran else ran[0]
    cell = out[key]
    failure = Failure(rule=entry.rule, check=BASELINE_CHECK, title=titles.get(entry.rule, ""),
                      message=message, expected="fail", observed="pass", provider=key[1])
    outcome = cell.outcome if cell.outcome in (Outcome.FAIL, Outcome.ERROR) \
        else Outcome.UNEXPECTED_PASS
    reason = message if outcome == Outcome.UNEXPECTED_PASS else cell.reason
    out[key] = Evidence(outcome, reason, [*cell.failures, failure], cell.inexpressible)


def _expired(baseline: Baseline, out: dict[Key, Evidence], titles: Mapping[str, str],
             today: date) -> None:
    """An expired entry excuses nothing and fails the run: its rule's failures stay failures
    (their cells say why), and where its rule passed, its first cell fails for it."""
    for entry in baseline.entries:
        if not entry.expired(today):
            continue
        note = (f"baseline {baseline.path} {entry.where} expired on {entry.until}: it excuses "
                "nothing; fix what it names, or renew `until` with a reason")
        ran = [k for k in _cells_of(entry, out) if _ran(out[k])]
        failing = [k for k in ran if out[k].outcome in (Outcome.FAIL, Outcome.ERROR)]
        for key in failing:
            cell = out[key]
            cell.reason = f"{note}; {cell.reason}" if cell.reason else note
        if ran and not failing:
            cell = out[ran[0]]
            failure = Failure(rule=entry.rule, check=BASELINE_CHECK,
                              title=titles.get(entry.rule, ""), message=note,
                              expected=f"until {entry.until}", observed=f"{today}",
                              provider=ran[0][1])
            out[ran[0]] = Evidence(Outcome.FAIL, note, [*cell.failures, failure],
                               cell.inexpressible)
