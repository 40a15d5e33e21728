"""What a run drew of each rule's domain: the partitions its checks declare, per rule, and
which check runs drew a case of each (docs/certify.md#partitions).

A check declares the partitions of its rules' domains when it is defined (``@check(...,
partitions=...)``, :mod:`..engine.partitions`); a check run records each one it drew a case of,
and how (:class:`Drawing`). The certificate lists, for every rule, each declared partition with
the runs that drew it and the runs that did not: a partition declared but undrawn is visible in
every report. What was drawn decides no outcome: a rule passes or fails by its checks'
expectations; the partitions say what those expectations were tried on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from pydantic import BaseModel, Field


class Drawing(str, Enum):
    """How a check run reached a partition, from the surest to the least sure."""

    #: a hand-written case the check runs at every seed
    EXAMPLE = "example"
    #: a case drawn by ``CheckContext.cover``, which draws one of every partition at every seed
    COVER = "cover"
    #: only a property's general draws reached it: another seed may not
    CHANCE = "chance"


#: :class:`Drawing` from the surest to the least sure.
SUREST_FIRST = (Drawing.EXAMPLE, Drawing.COVER, Drawing.CHANCE)


def surer(one: Drawing | None, other: Drawing) -> Drawing:
    """The surer of two ways one run reached a partition (``one`` None: not reached yet)."""
    if one is None:
        return other
    return min(one, other, key=SUREST_FIRST.index)


class PartitionDrawn(BaseModel):
    """One declared partition of a rule's domain, and which of the rule's check runs drew it."""

    check: str = Field(description="the check that declares it")
    name: str = Field(description="its stable name within the rule")
    description: str
    drawn: bool = Field(description="every run of the check that decided the rule drew a case "
                        "of it")
    by: Drawing | None = Field(None, description="how the runs that drew it reached it, the "
                               "least sure of them: example (a hand-written case, every seed), "
                               "cover (a case drawn of every partition, every seed) or chance "
                               "(a property's general draws: another seed may not); null: "
                               "undrawn")
    drawn_for: list[str] = Field(default_factory=list, description="the runs that drew it: a "
                                 "provider's name, or 'target' for a run once per target")
    undrawn_for: list[str] = Field(default_factory=list, description="the runs of the check "
                                   "that decided the rule and drew no case of it (a run that "
                                   "stopped early, at a failure, or at an operation the "
                                   "target cannot express)")
    inapplicable_for: list[str] = Field(default_factory=list, description="the runs in which "
                                        "it does not exist: the run's edition or the "
                                        "provider's capabilities leave it out (a preset in "
                                        "request-controls, a control the provider lacks)")
    inexpressible_for: list[str] = Field(default_factory=list, description="the runs whose "
                                         "target could not set it up: an operation it cannot "
                                         "express (UNSUPPORTED_OPERATION), while the rule was "
                                         "judged on the partitions it could")
    inexpressible: str | None = Field(None, description="why, as the first such run gave it "
                                      "(the target's own words are untrusted)")


@dataclass(frozen=True)
class DeclaredPartition:
    """A partition as a check declared it, in plain data (core knows no check)."""

    rule: str
    name: str
    description: str


@dataclass(frozen=True)
class DrawnRun:
    """What one check run drew: per ``(rule, partition name)``, how."""

    check: str
    provider: str | None
    #: the rules this run decided
    rules: tuple[str, ...]
    drawn: Mapping[tuple[str, str], Drawing] = field(default_factory=dict)
    #: the partitions that do not exist in this run (edition, the provider's capabilities)
    inapplicable: frozenset[tuple[str, str]] = frozenset()
    #: the rules this run found not applicable (their partitions are not asked of it)
    skipped: frozenset[str] = frozenset()
    #: the partitions this run's target could not set up, with the reason
    inexpressible: Mapping[tuple[str, str], str] = field(default_factory=dict)


TARGET_RUN = "target"


def records(declared: Mapping[str, Sequence[DeclaredPartition]],
            runs: Iterable[DrawnRun]) -> dict[str, list[PartitionDrawn]]:
    """Per rule id, every partition a check declares for it, with the runs of that check that
    decided the rule and drew it or not (in the order the checks declare them)."""
    by_check: dict[str, list[DrawnRun]] = {}
    for run in runs:
        by_check.setdefault(run.check, []).append(run)
    out: dict[str, list[PartitionDrawn]] = {}
    for check, partitions in declared.items():
        for part in partitions:
            deciding = [r for r in by_check.get(check, ())
                        if part.rule in r.rules and part.rule not in r.skipped]
            drawn_for, undrawn_for, inapplicable_for, inexpressible_for = [], [], [], []
            by: Drawing | None = None
            why: str | None = None
            for run in deciding:
                label = run.provider if run.provider is not None else TARGET_RUN
                how = run.drawn.get((part.rule, part.name))
                if how is None and (part.rule, part.name) in run.inapplicable:
                    inapplicable_for.append(label)
                    continue
                if how is None and (part.rule, part.name) in run.inexpressible:
                    inexpressible_for.append(label)
                    why = why or run.inexpressible[part.rule, part.name]
                    continue
                if how is None:
                    undrawn_for.append(label)
                    continue
                drawn_for.append(label)
                # the least sure way any run reached it is what the record promises
                by = how if by is None else max(by, how, key=SUREST_FIRST.index)
            out.setdefault(part.rule, []).append(PartitionDrawn(
                check=check, name=part.name, description=part.description,
                drawn=bool(drawn_for) and not undrawn_for, by=by, drawn_for=drawn_for,
                undrawn_for=undrawn_for, inapplicable_for=inapplicable_for,
                inexpressible_for=inexpressible_for, inexpressible=why))
    return out


def judged(partitions: Iterable[PartitionDrawn]) -> list[PartitionDrawn]:
    """The partitions some run was asked to draw (a rule no run decided, not applicable or
    deselected, has its partitions listed but not counted)."""
    return [p for p in partitions if p.drawn_for or p.undrawn_for]


def summary(rules: Iterable[tuple[str, Sequence[PartitionDrawn]]],
            limit: int = 8) -> str | None:
    """``"partitions: 210 of 214 drawn; undrawn: PE-05 unclosed-open (spawn), ..."`` over
    ``(rule id, partitions)``, or None when no run was asked to draw one (untrusted: a
    provider's name is the target's; each report escapes it)."""
    rules = list(rules)
    counted = [(rule, p) for rule, parts in rules for p in judged(parts)]
    beyond = [f"{rule} {p.name} ({', '.join(p.inexpressible_for)})" for rule, parts in rules
              for p in parts if p.inexpressible_for]
    if not counted and not beyond:
        return None
    missing = [f"{rule} {p.name} ({', '.join(p.undrawn_for)})" for rule, p in counted
               if not p.drawn]
    line = f"partitions: {len(counted) - len(missing)} of {len(counted)} drawn"
    if missing:
        line += "; undrawn: " + _listed(missing, limit)
    if beyond:
        line += "; inexpressible on the target: " + _listed(beyond, limit)
    return line


def _listed(items: Sequence[str], limit: int) -> str:
    more = len(items) - limit
    return ", ".join(items[:limit]) + (f", and {more} more (see the JSON certificate)"
                                       if more > 0 else "")
