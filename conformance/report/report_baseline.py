"""What the run's baseline excused and found new, stale or expired, in every report
(docs/baseline.md#reports). One home for the words; each report escapes them its own way
(everything but the counts may hold a target's text)."""

from __future__ import annotations

from ..core.baseline_judge import BaselineSummary


def headline(summary: BaselineSummary) -> str:
    """``baseline FILE: 12 assertion(s) excused (...); 0 new, 0 stale, 0 expired``."""
    c = summary.counts()
    sampled = sum(1 for e in summary.excused if e.sampled)
    parts = [f"{c['excused']} assertion(s) excused"
             + (f" ({sampled} the campaign's sample of a listed rule)" if sampled else "")]
    if c["whole_rule"]:
        parts.append(f"{c['whole_rule']} by whole-rule entries (scope = \"rule\")")
    verdict = f"{c['new']} new, {c['stale']} stale, {c['expired']} expired"
    return f"baseline {summary.path}: {', '.join(parts)}; {verdict}"


def excused_by_rule(summary: BaselineSummary) -> str:
    """``TF-07 7, TF-08 5 (1 sampled)``: the excused assertions per rule."""
    counts: dict[str, list[int]] = {}
    for e in [*summary.excused, *summary.whole_rule]:
        row = counts.setdefault(e.rule, [0, 0])
        row[0] += 1
        row[1] += e.sampled
    return ", ".join(f"{rule} {n}" + (f" ({s} sampled)" if s else "")
                     for rule, (n, s) in counts.items())


def items(summary: BaselineSummary) -> list[tuple[str, str]]:
    """``(kind, line)`` for every new, stale, expired and unseen assertion or entry; kinds
    new, stale and expired fail the run, unseen does not."""
    out: list[tuple[str, str]] = []
    for n in summary.new:
        where = "inside a listed rule" if n.listed else "no entry lists the rule"
        out.append(("new", f"{n.rule} [{n.provider or 'target'}] {n.assertion.fingerprint} "
                           f"{n.assertion.summary()} ({where})"))
    for s in summary.stale:
        out.append(("stale", f"{s.rule} entry {s.entry}: {s.description}: it {s.why}"))
    for e in summary.expired:
        out.append(("expired", f"{e.rule} entry {e.number} expired on {e.until}: {e.reason}"))
    for u in summary.unseen:
        out.append(("unseen", f"{u.rule} entry {u.entry}: {u.description}: {u.why}"))
    return out
