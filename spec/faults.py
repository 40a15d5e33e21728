"""Which code a refused start must carry when several faults apply at once.

A start can break several rules at once (a control the provider lacks, a stored depth outside
the domain, a persona that does not render...). Where a rule fixes the code, the oracle expects
that code, not any of the faults' codes: a target whose gates run in the wrong order would
otherwise pass. Each :class:`Fault` belongs to one :class:`Stage` of the start, and the rules
order the stages:

- ``ENTRY``: a provider that is not registered is ``NO_PROVIDER`` and nothing else
  (docs/rules.md#CA-05); a preset that does not exist is ``UNKNOWN_PRESET`` (the start asks for
  a composition that does not exist, so no other control is defined).
- ``GATE``: a control the provider does not advertise fails with ``UNSUPPORTED_CAPABILITY``
  whatever its value (docs/rules.md#CA-01), before the provider is called and before any child
  exists (docs/rules.md#CA-02): before a depth rejection of the parent's state (a stored or
  runtime depth outside the domain, an overflow: docs/rules.md#DE-06 .. #DE-08 fix no code) and
  before every setup fault.
- ``VALUE``: a ``maxDepth`` outside the domain (docs/rules.md#DE-05). Whether the gate comes
  before this value check is docs/rules.md#CA-03, a SHOULD: :func:`acceptable` (what no MUST
  rule forbids) admits it beside ``UNSUPPORTED_CAPABILITY``, :func:`preferred` (CA-03) does not.
- ``DEPTH``: the parent's stored or runtime depth outside the domain, the derived depth past
  2^53-1, the cap exceeded (docs/rules.md#DE-03, #DE-06 .. #DE-08). A depth rejection comes
  before the child is owned (docs/rules.md#DE-04), so before every setup fault. A start the
  parent's spawn policies refuse (``SPAWN_DENIED``) creates nothing as DE-04 says
  (docs/rules.md#SP-01): the same stage. No rule orders ``VALUE`` and ``DEPTH`` between them:
  either's code is acceptable where both apply.
- ``SETUP``: the composition does not apply (a persona that does not render, a filter naming an
  unknown tool or none, an output schema that is no object schema: docs/rules.md#FR-03,
  #PE-05, #TF-07, #TF-08; a child's own spawn policy or model that is not valid: #SP-01,
  #MO-01). The rules give setup no order: any of their codes.

Two stages stand beside every other: ``EDITION``, a persona or toolFilter in a preset-composition
start request, is refused with ``REQUEST_CONTROLS_REFUSED`` or the code of another rejection
that applies (docs/rules.md#EN-02 leaves that order open), and ``MALFORMED``, a request that is
not a well-formed start (a persona that is not a string; a JSON request with ``NaN``), which
may be refused as malformed before anything is read.

A persona whose braces are the implementation's grammar (a ``{{`` nothing closes, a ``}}``
that closes nothing: docs/rules.md#PE-05) may be refused with ``INVALID_TEMPLATE`` where a
setup fault may be reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from .errors import ErrorCode
from .vocabulary import Capability


class Stage(IntEnum):
    """Where in a start a fault is met; the ordered stages in the order the rules fix."""

    ENTRY = 0
    EDITION = 1
    MALFORMED = 2
    GATE = 3
    VALUE = 4
    DEPTH = 5
    SETUP = 6


#: The stage of a fault built without one, by its code (``INVALID_DEPTH`` is a depth
#: rejection unless it is said to be ``maxDepth``'s own value).
_STAGE_OF: dict[ErrorCode, Stage] = {
    ErrorCode.NO_PROVIDER: Stage.ENTRY,
    ErrorCode.UNKNOWN_PRESET: Stage.ENTRY,
    ErrorCode.REQUEST_CONTROLS_REFUSED: Stage.EDITION,
    ErrorCode.INVALID_REQUEST: Stage.MALFORMED,
    ErrorCode.UNSUPPORTED_CAPABILITY: Stage.GATE,
    ErrorCode.INVALID_DEPTH: Stage.DEPTH,
    ErrorCode.DEPTH_EXCEEDED: Stage.DEPTH,
    ErrorCode.SPAWN_DENIED: Stage.DEPTH,
}
#: Stages no rule orders among themselves (docs/rules.md#DE-04, #SP-01): their rejections
#: come before the child is owned; ``VALUE`` differs only beside the gate (CA-03).
_BEFORE_OWNERSHIP = frozenset({Stage.VALUE, Stage.DEPTH})
#: Stages whose codes stand beside those of the ordered stages.
_BESIDE = (Stage.EDITION, Stage.MALFORMED)


@dataclass(frozen=True)
class Fault:
    """One reason a start must be refused: its code, why, the capability it lacks (CA-01)
    and the stage it is met at (by default, the stage of its code; else ``SETUP``)."""

    code: ErrorCode
    reason: str
    capability: Capability | None = None
    stage: Stage | None = None

    @property
    def phase(self) -> Stage:
        return self.stage if self.stage is not None else _STAGE_OF.get(self.code, Stage.SETUP)


def _ordered(faults: Iterable[Fault]) -> list[Fault]:
    return sorted((f for f in faults if f.phase not in _BESIDE), key=lambda f: f.phase)


def deciding(faults: Sequence[Fault]) -> Fault | None:
    """The fault whose rule fixes the code a refusal must carry: the first of the earliest
    ordered stage (else the first fault; None when there is none)."""
    ordered = _ordered(faults)
    if ordered:
        return ordered[0]
    return faults[0] if faults else None


def _codes(faults: Sequence[Fault], grammar: bool, should: bool) -> frozenset[ErrorCode]:
    codes = {f.code for f in faults if f.phase in _BESIDE}
    ordered = _ordered(faults)
    first = ordered[0].phase if ordered else None
    if first is Stage.ENTRY:
        return frozenset({*codes, ordered[0].code})
    if first is Stage.GATE:
        codes.add(ErrorCode.UNSUPPORTED_CAPABILITY)
        if not should:  # CA-03 (a SHOULD) orders the gate before maxDepth's value check
            codes.update(f.code for f in ordered if f.phase is Stage.VALUE)
    elif first is not None:
        # maxDepth's own value and the depth and spawn-policy rejections are all met before
        # the child is owned; no rule orders them among themselves
        tier = _BEFORE_OWNERSHIP if first in _BEFORE_OWNERSHIP else {first}
        codes.update(f.code for f in ordered if f.phase in tier)
    if grammar and codes and first in (None, Stage.SETUP):
        codes.add(ErrorCode.INVALID_TEMPLATE)
    return frozenset(codes)


def acceptable(faults: Sequence[Fault], grammar: bool = False) -> frozenset[ErrorCode]:
    """The codes a refusal may carry without breaking a MUST rule (empty: no fault)."""
    return _codes(faults, grammar, should=False)


def preferred(faults: Sequence[Fault], grammar: bool = False) -> frozenset[ErrorCode]:
    """The codes a refusal carries when it also follows docs/rules.md#CA-03 (a SHOULD)."""
    return _codes(faults, grammar, should=True)


__all__ = ["Fault", "Stage", "acceptable", "deciding", "preferred"]
