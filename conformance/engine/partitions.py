"""The partitions of a rule's domain a check declares, and how it draws them
(docs/certify.md#partitions).

A rule covers a domain (every placeholder shape of a persona template, every place a target
keeps a depth, every way a tool is called); a check that only ever drew from part of it would
certify a target that is wrong in the rest. So a check names the parts when it is defined::

    PE05 = (
        Partition("PE-05", "unknown-name", "a {{name}} that is no variable",
                  cases=unknown_name_st),
        Partition("PE-05", "stray-close", "a }} that closes nothing", cases=stray_close_st),
        Partition("PE-05", "inherited", "the deployment persona a child inherits"),
    )

    @check("PE-05", name="persona-strict-template", partitions=PE05)
    def strict_template(ctx):
        ...hand-written case...; ctx.drew("PE-05", "inherited")
        ctx.cover("PE-05", body)  # a drawn case of every partition with cases, every seed

Each partition is reached one of two ways, both at every seed: a hand-written case the check
always runs records it with :meth:`CheckContext.drew`; a partition with ``cases`` (a
Hypothesis strategy of values inside it, and optionally ``member``, a test of membership) is
drawn by :meth:`CheckContext.cover`, which draws over ``one_of`` the partitions first, then a
value inside, and gives every partition the budget did not reach a case of its own. A
partition only a property's general draws reach is recorded as drawn by chance, which the
kit's own tests refuse. Misuse is refused when the check is defined: a partition of a rule the
check does not cite, a name twice, a name that is not lower-case words joined by ``-``, an
empty description, ``member`` without ``cases``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from ..core.drawn import DeclaredPartition

#: A partition's name: lower-case words (letters, digits) joined by ``-``.
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Partition:
    """One part of ``rule``'s domain that a check draws a case of at every seed."""

    rule: str
    name: str
    doc: str
    #: Values inside the partition, drawn by :meth:`CheckContext.cover`; None: a hand-written
    #: case of the check reaches it (recorded with :meth:`CheckContext.drew`).
    cases: SearchStrategy[Any] | None = field(default=None, compare=False, repr=False)
    #: Whether a value is inside the partition: :meth:`CheckContext.cover` and the kit's tests
    #: hold ``cases`` to it.
    member: Callable[[Any], bool] | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> tuple[str, str]:
        return self.rule, self.name

    def declared(self) -> DeclaredPartition:
        return DeclaredPartition(self.rule, self.name, self.doc)


def problems(partitions: object, cited: Sequence[str]) -> list[str]:
    """What is wrong with a check's ``partitions=`` (empty: nothing), each naming the fix."""
    if not isinstance(partitions, (tuple, list)):
        return [f"partitions= takes a tuple of Partition values, not {type(partitions).__name__}"]
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    citing = ", ".join(repr(r) for r in cited)
    for part in partitions:
        if not isinstance(part, Partition):
            out.append(f"partitions= takes Partition values, not {type(part).__name__} "
                       f"{part!r}: Partition('TF-01', 'name', 'what it covers')")
            continue
        where = f"partition {part.rule} {part.name!r}"
        if part.rule not in cited:
            out.append(f"{where}: the check does not cite {part.rule}; add it to "
                       f"@check({citing}, ...) or declare partitions of the rules it cites")
        if not isinstance(part.name, str) or not NAME.fullmatch(part.name):
            out.append(f"{where}: a partition's name is lower-case words joined by '-', "
                       "e.g. 'unknown-name'")
        if part.key in seen:
            out.append(f"{where} is declared twice: give each partition of a rule its own name")
        seen.add(part.key)
        if not isinstance(part.doc, str) or not part.doc.strip():
            out.append(f"{where}: say what it covers (doc)")
        if part.cases is not None and not isinstance(part.cases, SearchStrategy):
            out.append(f"{where}: cases= takes a Hypothesis strategy, not "
                       f"{type(part.cases).__name__}")
        if part.member is not None and part.cases is None:
            out.append(f"{where}: member= tests the values of cases=; give cases= too")
    return out


def _paired(part: Partition) -> SearchStrategy[tuple[Partition, Any]]:
    assert part.cases is not None
    return part.cases.map(lambda value: (part, value))


def cover_strategy(parts: Sequence[Partition]) -> SearchStrategy[tuple[Partition, Any]]:
    """A partition first (``one_of`` over ``parts``), then a value inside it."""
    return st.one_of(*[_paired(p) for p in parts])


def top_up_strategy(part: Partition) -> SearchStrategy[tuple[Partition, Any]]:
    """A value inside ``part`` alone: the case a partition the budget missed gets."""
    return _paired(part)


def of_rule(partitions: Iterable[Partition], rule: str,
            names: Iterable[str] | None = None) -> list[Partition]:
    """The partitions of ``rule`` that have cases (those of ``names`` only, when given)."""
    wanted = None if names is None else set(names)
    return [p for p in partitions if p.rule == rule and p.cases is not None
            and (wanted is None or p.name in wanted)]


def _how(part: Partition) -> str:
    return "cover" if part.cases is not None else "example"


def explained(rendered: str, fmt: str, declared: Sequence[tuple[str, Partition]]) -> str:
    """``rendered`` (a rule as ``subagent-tck explain`` prints it in ``fmt``) with the
    partitions its checks declare, ``(check name, partition)`` each: how each is drawn at every
    seed, a hand-written case (example) or a case drawn of every partition (cover)."""
    if fmt == "json":
        data = json.loads(rendered)
        data["partitions"] = [{"check": check, "name": p.name, "description": p.doc,
                               "drawn_by": _how(p)} for check, p in declared]
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if not declared:
        return rendered + "\nPartitions: none declared by any check.\n"
    head = ("Partitions of its domain the checks draw at every seed (`certify` records which a "
            "run drew; example: a hand-written case, cover: a drawn case of each):")
    if fmt == "markdown":
        lines = [f"- `{check}` **{p.name}** ({_how(p)}): {p.doc}" for check, p in declared]
        return rendered.rstrip("\n") + "\n\n" + head + "\n\n" + "\n".join(lines) + "\n"
    width = max(len(p.name) for _, p in declared)
    lines = [f"  {p.name:<{width}}  {_how(p):<7}  {p.doc}  [{check}]" for check, p in declared]
    return rendered.rstrip("\n") + "\n\n" + head + "\n" + "\n".join(lines) + "\n"
