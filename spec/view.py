"""The view of a scope: which tools its model is offered and may call (TF-01..TF-06, TF-12).

One resolver: the view is the single set behind wire schemas, lookup, execution and SDK
bindings. Order is not fixed by any rule (compare views as sets); the oracle's order is
admitted globals in registration order with a shadowing local in its global's place, then the
other locals, then ``run_code``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from .restriction import Restriction
from .vocabulary import RUN_CODE, PresentationMode


class Origin(str, Enum):
    """Where a visible tool comes from: the body that runs when it is called."""

    GLOBAL = "global"
    LOCAL = "local"
    RESERVED = "reserved"  # run_code


@dataclass(frozen=True)
class ViewEntry:
    name: str
    origin: Origin


def offers_run_code(mode: PresentationMode) -> bool:
    """TF-06: ``run_code`` is offered in ``ptc`` and ``both`` modes."""
    return mode is not PresentationMode.NATIVE


def resolve_view(
    global_names: Sequence[str],
    restrictions: Iterable[Restriction],
    local_names: Sequence[str],
    mode: PresentationMode = PresentationMode.NATIVE,
) -> tuple[ViewEntry, ...]:
    """The view of a scope.

    A global is visible iff every restriction admits it (TF-01, TF-02); locals are added after
    the filter and are never hidden (TF-04); a local shadows a global of the same name (TF-05);
    ``run_code`` is outside the filter (TF-06).
    """
    rules = tuple(restrictions)
    locals_ = set(local_names)
    entries: list[ViewEntry] = []
    placed: set[str] = set()
    for name in global_names:
        if name in placed or not all(r.admits(name) for r in rules):
            continue
        placed.add(name)
        entries.append(ViewEntry(name, Origin.LOCAL if name in locals_ else Origin.GLOBAL))
    for name in local_names:
        if name not in placed:
            placed.add(name)
            entries.append(ViewEntry(name, Origin.LOCAL))
    if offers_run_code(mode):
        entries.append(ViewEntry(RUN_CODE, Origin.RESERVED))
    return tuple(entries)


def wire_tool_names(view: Sequence[ViewEntry], mode: PresentationMode) -> frozenset[str]:
    """The tool schemas a model request carries: only ``run_code`` in ``ptc`` mode."""
    if mode is PresentationMode.PTC:
        return frozenset(e.name for e in view if e.origin is Origin.RESERVED)
    return frozenset(e.name for e in view)


def sdk_binding_names(view: Sequence[ViewEntry], mode: PresentationMode) -> frozenset[str]:
    """TF-12: the ``run_code`` SDK binds exactly the visible tools other than ``run_code``."""
    if not offers_run_code(mode):
        return frozenset()
    return frozenset(e.name for e in view if e.origin is not Origin.RESERVED)
