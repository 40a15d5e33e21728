"""The depth domain and depth derivation (docs/rules.md, DE family and its "Decision (domain)").

Values are JSON numbers read as JavaScript reads them: a depth is accepted iff it is an
integer-valued, finite number with 0 <= v <= 2**53 - 1 that is not negative zero. Everything
else (negative, fraction, ``-0``, NaN, infinities, 2**53 and above, booleans, strings, null,
arrays, objects) is rejected. Over a JSON wire the non-standard tokens ``NaN``, ``Infinity`` and
``-Infinity`` make the whole request malformed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import Enum

from .errors import ErrorCode
from .vocabulary import MAX_SAFE_INTEGER


class DepthProblem(str, Enum):
    """Why a value is outside the depth domain."""

    NOT_A_NUMBER_TYPE = "not-a-number-type"  # bool, str, None, list, dict, ...
    NOT_FINITE = "not-finite"  # NaN, Infinity, -Infinity
    NEGATIVE_ZERO = "negative-zero"
    NEGATIVE = "negative"
    FRACTION = "fraction"
    UNSAFE = "unsafe"  # 2**53 and above
    MALFORMED = "malformed"  # raw JSON text that is not JSON (NaN/Infinity tokens included)


_ADVICE = {
    DepthProblem.NOT_A_NUMBER_TYPE: "give a JSON number such as 0, 1 or 3",
    DepthProblem.NOT_FINITE: "give a finite whole number",
    DepthProblem.NEGATIVE_ZERO: "give 0, not -0",
    DepthProblem.NEGATIVE: "give a number of 0 or more",
    DepthProblem.FRACTION: "give a whole number",
    DepthProblem.UNSAFE: f"give a number of at most {MAX_SAFE_INTEGER} (2^53-1)",
    DepthProblem.MALFORMED: "send standard JSON; NaN and Infinity are not JSON numbers",
}


@dataclass(frozen=True)
class DepthVerdict:
    """The oracle's answer for one depth value: the accepted integer, or the problem."""

    value: int | None
    problem: DepthProblem | None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def advice(self) -> str:
        """How to fix a rejected value (empty for an accepted one)."""
        return "" if self.problem is None else _ADVICE[self.problem]


def check_depth(value: object) -> DepthVerdict:
    """Judge a Python value as a depth (``True`` is not a number; ``-0.0`` and NaN reject)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return DepthVerdict(None, DepthProblem.NOT_A_NUMBER_TYPE)
    if isinstance(value, float):
        if not math.isfinite(value):
            return DepthVerdict(None, DepthProblem.NOT_FINITE)
        if value == 0 and math.copysign(1.0, value) < 0:
            return DepthVerdict(None, DepthProblem.NEGATIVE_ZERO)
    if value < 0:
        return DepthVerdict(None, DepthProblem.NEGATIVE)
    if isinstance(value, float) and not value.is_integer():
        return DepthVerdict(None, DepthProblem.FRACTION)
    if value > MAX_SAFE_INTEGER:
        return DepthVerdict(None, DepthProblem.UNSAFE)
    return DepthVerdict(int(value), None)


class _Malformed(ValueError):
    pass


def _refuse_constant(token: str) -> object:
    raise _Malformed(token)


def read_json_number(text: str) -> object:
    """Parse JSON text the way JavaScript's ``JSON.parse`` would, numbers as IEEE doubles.

    ``9007199254740993`` reads as 2**53, ``-0`` as negative zero, ``1e400`` as infinity. The
    tokens ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON: :class:`ValueError` is raised,
    as for any other malformed text.
    """
    try:
        return json.loads(
            text, parse_int=float, parse_float=float, parse_constant=_refuse_constant
        )
    except (_Malformed, json.JSONDecodeError) as exc:
        raise ValueError(f"malformed JSON: {text!r}") from exc


def check_depth_json(text: str) -> DepthVerdict:
    """Judge raw JSON text as a depth, as a JavaScript runtime would read it."""
    try:
        value = read_json_number(text)
    except ValueError:
        return DepthVerdict(None, DepthProblem.MALFORMED)
    return check_depth(value)


@dataclass(frozen=True)
class StartDepth:
    """The oracle's answer for the depth side of one start (DE-01..DE-03, DE-05..DE-08, DE-10).

    ``code`` is None when the start may go on (then ``child_depth`` is the derived depth), else
    ``INVALID_DEPTH`` or ``DEPTH_EXCEEDED`` with ``reason`` naming the input at fault.
    """

    child_depth: int | None
    code: ErrorCode | None
    reason: str

    @property
    def ok(self) -> bool:
        return self.code is None


ABSENT: object = object()
"""Marks an omitted value (``maxDepth`` left out, or no runtime depth), unlike ``None``."""


def decide_start_depth(
    header_depth: object, runtime_depth: object = ABSENT, max_depth: object = ABSENT
) -> StartDepth:
    """Decide a start from a parent with ``header_depth`` (durable) and ``runtime_depth``.

    Validation order: the cap (DE-05), the stored header (DE-06), the runtime value (DE-07),
    then derivation (DE-01, DE-02), overflow (DE-08) and the cap itself (DE-03). An omitted cap
    is unbounded (DE-10).
    """
    cap: int | None = None
    if max_depth is not ABSENT:
        verdict = check_depth(max_depth)
        if verdict.value is None:
            return StartDepth(None, ErrorCode.INVALID_DEPTH, f"maxDepth: {verdict.advice()}")
        cap = verdict.value
    header = check_depth(header_depth)
    if header.value is None:
        return StartDepth(
            None, ErrorCode.INVALID_DEPTH, f"stored delegationDepth: {header.advice()}"
        )
    parent = header.value
    if runtime_depth is not ABSENT:
        runtime = check_depth(runtime_depth)
        if runtime.value is None:
            return StartDepth(
                None, ErrorCode.INVALID_DEPTH, f"runtime subagentDepth: {runtime.advice()}"
            )
        parent = max(parent, runtime.value)  # DE-02: the runtime may deepen, never lower
    child = parent + 1
    if child > MAX_SAFE_INTEGER:
        return StartDepth(
            None, ErrorCode.INVALID_DEPTH, "derived child depth would exceed 2^53-1 (DE-08)"
        )
    if cap is not None and child > cap:
        return StartDepth(
            None, ErrorCode.DEPTH_EXCEEDED, f"child depth {child} is greater than maxDepth {cap}"
        )
    return StartDepth(child, None, "")
