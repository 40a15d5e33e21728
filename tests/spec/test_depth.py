"""The depth oracle (spec/depth.py): the domain, JSON reading and start-depth decisions."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.spec import (
    ABSENT,
    MAX_SAFE_INTEGER,
    DepthProblem,
    ErrorCode,
    check_depth,
    check_depth_json,
    decide_start_depth,
    read_json_number,
)

FAST = settings(max_examples=60, deadline=None)
DEPTHS = st.integers(min_value=0, max_value=MAX_SAFE_INTEGER)
SMALL = st.integers(min_value=0, max_value=1000)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (True, DepthProblem.NOT_A_NUMBER_TYPE),
        ("1", DepthProblem.NOT_A_NUMBER_TYPE),
        (None, DepthProblem.NOT_A_NUMBER_TYPE),
        ([], DepthProblem.NOT_A_NUMBER_TYPE),
        (float("nan"), DepthProblem.NOT_FINITE),
        (-math.inf, DepthProblem.NOT_FINITE),
        (-0.0, DepthProblem.NEGATIVE_ZERO),
        (-1, DepthProblem.NEGATIVE),
        (-0.5, DepthProblem.NEGATIVE),
        (0.5, DepthProblem.FRACTION),
        (2**53, DepthProblem.UNSAFE),
        (float(2**53), DepthProblem.UNSAFE),
    ],
)
def test_a_value_outside_the_domain_is_rejected_with_its_problem(
    value: object, problem: DepthProblem
) -> None:
    verdict = check_depth(value)
    assert not verdict.ok and verdict.value is None and verdict.problem is problem
    assert verdict.advice()


@pytest.mark.parametrize(("value", "accepted"), [(0, 0), (0.0, 0), (2.0, 2), (MAX_SAFE_INTEGER,
                                                 MAX_SAFE_INTEGER)])
def test_an_integer_valued_number_is_accepted_as_an_int(value: object, accepted: int) -> None:
    verdict = check_depth(value)
    assert verdict.ok and verdict.value == accepted and type(verdict.value) is int
    assert verdict.advice() == ""


@pytest.mark.parametrize(
    ("text", "value"),
    [("9007199254740993", float(2**53)), ("1e400", math.inf), ("1.0", 1.0), ('"1"', "1")],
)
def test_json_numbers_read_as_javascript_reads_them(text: str, value: object) -> None:
    assert read_json_number(text) == value


def test_json_negative_zero_reads_as_negative_zero() -> None:
    value = read_json_number("-0")
    assert isinstance(value, float) and math.copysign(1.0, value) < 0


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "", "01", "[1,", "1 2"])
def test_text_that_is_not_json_is_malformed(text: str) -> None:
    with pytest.raises(ValueError, match="malformed JSON"):
        read_json_number(text)
    assert check_depth_json(text).problem is DepthProblem.MALFORMED


@FAST
@given(st.integers(min_value=-(2**60), max_value=2**60))
def test_check_depth_json_agrees_with_check_depth_on_dumped_ints(value: int) -> None:
    # Within the safe range a JSON integer reads exactly; beyond it only the verdict must agree.
    by_json = check_depth_json(json.dumps(value))
    direct = check_depth(value)
    assert by_json.ok == direct.ok
    if direct.ok:
        assert by_json.value == direct.value


@FAST
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_finite_float_is_accepted_iff_it_is_a_safe_non_negative_whole_number(x: float) -> None:
    expected = x.is_integer() and 0 <= x <= MAX_SAFE_INTEGER and math.copysign(1.0, x) > 0
    assert check_depth(x).ok == expected


@FAST
@given(DEPTHS, st.one_of(st.just(ABSENT), DEPTHS))
def test_the_child_is_one_deeper_than_the_larger_parent_depth(header: int, runtime: object) -> None:
    decision = decide_start_depth(header, runtime)
    parent = header if runtime is ABSENT else max(header, runtime)  # type: ignore[call-overload]
    if parent == MAX_SAFE_INTEGER:
        assert decision.code is ErrorCode.INVALID_DEPTH and "2^53-1" in decision.reason
    else:
        assert decision.ok and decision.child_depth == parent + 1 and decision.reason == ""


@FAST
@given(SMALL, SMALL, SMALL)
def test_a_start_is_refused_iff_the_child_would_pass_the_cap(
    header: int, runtime: int, cap: int
) -> None:
    decision = decide_start_depth(header, runtime, cap)
    child = max(header, runtime) + 1
    if child > cap:
        assert decision.code is ErrorCode.DEPTH_EXCEEDED
        assert str(child) in decision.reason and str(cap) in decision.reason
    else:
        assert decision.child_depth == child


@FAST
@given(SMALL, SMALL)
def test_the_runtime_depth_never_lowers_the_count(header: int, runtime: int) -> None:
    with_runtime = decide_start_depth(header, runtime).child_depth
    without = decide_start_depth(header).child_depth
    assert with_runtime is not None and without is not None and with_runtime >= without


@pytest.mark.parametrize(
    ("header", "runtime", "cap", "names"),
    [
        (0, ABSENT, -1, "maxDepth"),
        (0, ABSENT, None, "maxDepth"),
        (-1, ABSENT, ABSENT, "stored delegationDepth"),
        ("2", ABSENT, 5, "stored delegationDepth"),
        (0, float("nan"), ABSENT, "runtime subagentDepth"),
        (0, True, 5, "runtime subagentDepth"),
    ],
)
def test_a_value_outside_the_domain_fails_the_start_naming_the_input(
    header: object, runtime: object, cap: object, names: str
) -> None:
    decision = decide_start_depth(header, runtime, cap)
    assert decision.code is ErrorCode.INVALID_DEPTH and decision.child_depth is None
    assert decision.reason.startswith(names) and not decision.ok


def test_a_bad_cap_is_reported_before_a_bad_header() -> None:
    assert decide_start_depth(-1, ABSENT, -1).reason.startswith("maxDepth")


def test_the_overflow_check_applies_with_the_largest_cap() -> None:
    decision = decide_start_depth(MAX_SAFE_INTEGER, ABSENT, MAX_SAFE_INTEGER)
    assert decision.code is ErrorCode.INVALID_DEPTH
    assert decide_start_depth(MAX_SAFE_INTEGER - 1).child_depth == MAX_SAFE_INTEGER
