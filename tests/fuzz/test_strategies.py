"""The fuzzer's strategies: depth values as raw JSON text, restrictions over name references."""

from __future__ import annotations

import math

from hypothesis import given

from subagent_tck.fuzz.lexicon import CLASSIC
from subagent_tck.fuzz.strategies import (
    DEPTH_POOL,
    EDGE_TEXTS,
    NON_JSON_TOKENS,
    OMIT,
    Code,
    DepthText,
    depth_texts,
    depth_value,
    is_well_formed,
    pick_depth,
    pick_header,
    pick_optional_depth,
    pick_output_schema,
    pick_persona,
    pick_restriction,
    restriction_values,
)
from subagent_tck.spec import (
    MAX_SAFE_INTEGER,
    check_depth,
    check_depth_json,
    read_json_number,
    validate_restriction,
)


def test_a_depth_text_reaches_an_in_process_target_as_javascript_reads_it() -> None:
    assert depth_value("9007199254740993") == float(2**53)
    assert math.copysign(1.0, depth_value("-0")) < 0  # type: ignore[arg-type]
    assert depth_value("1e2") == 100.0
    assert depth_value("1e-400") == 0.0
    assert depth_value('"1"') == "1"
    assert depth_value("true") is True


def test_the_non_json_tokens_become_the_python_floats_nan_and_infinity() -> None:
    assert math.isnan(depth_value("NaN"))  # type: ignore[arg-type]
    assert depth_value("Infinity") == math.inf
    assert depth_value("-Infinity") == -math.inf
    assert not is_well_formed("NaN") and is_well_formed("1.0")
    assert set(NON_JSON_TOKENS) <= set(EDGE_TEXTS)


def test_the_edge_texts_cover_both_sides_of_the_domain() -> None:
    verdicts = {t: check_depth(depth_value(t)).ok for t in EDGE_TEXTS}
    assert verdicts["9007199254740991"] and not verdicts["9007199254740992"]
    assert not verdicts["9007199254740993"] and not verdicts["-0"] and verdicts["1.0"]
    assert verdicts["1e-400"] and not verdicts["-1e-400"]
    assert sum(verdicts.values()) >= 10 and sum(not v for v in verdicts.values()) >= 20


@given(depth_texts())
def test_a_drawn_depth_is_judged_like_its_json_text(depth: DepthText) -> None:
    value = depth.value
    if is_well_formed(depth.text):
        assert check_depth(value).ok == check_depth_json(depth.text).ok
        assert read_json_number(depth.text) == value or value != value
    else:
        assert not check_depth(value).ok  # NaN / Infinity: rejected either way


@given(depth_texts())
def test_an_accepted_drawn_depth_is_a_safe_whole_number(depth: DepthText) -> None:
    verdict = check_depth(depth.value)
    if verdict.ok:
        assert verdict.value is not None and 0 <= verdict.value <= MAX_SAFE_INTEGER


@given(restriction_values(["read", "write"]))
def test_a_drawn_restriction_names_registered_globals_or_known_offenders(raw: object) -> None:
    if isinstance(raw, dict):
        for key in ("allow", "deny"):
            names = raw.get(key)
            if isinstance(names, list):
                known = ("read", "write", *CLASSIC.extra_names)
                assert all(n in known for n in names if isinstance(n, str))


def test_a_code_reads_one_byte_per_choice_and_zeros_when_exhausted() -> None:
    code = Code(bytes([7, 13, 0, 1]))
    assert code.take(10) == 7 and code.choose("abcde") == "d"
    assert code.take(100) == 1  # more than 64 options: two bytes (0, 1)
    assert code.take(9) == 0 and code.take(1) == 0


def test_a_restriction_is_resolved_against_the_current_globals() -> None:
    globals_ = ["read", "web"]
    seen = [pick_restriction(Code(n.to_bytes(3, "big")), globals_) for n in range(0, 2**24, 4099)]
    valid = [r for r in seen if isinstance(r, dict) and validate_restriction(r, globals_).ok]
    assert len(valid) > len(seen) // 3  # most restrictions are valid ...
    assert any(not validate_restriction(r, globals_).ok for r in seen)  # ... not all
    assert {"allow": []} in seen and {"deny": ["read"]} in seen
    assert pick_restriction(Code(b""), []) == {"allow": []}  # the simplest is a code of zeros


def test_zero_bytes_decode_to_the_simplest_choices() -> None:
    zero = bytes(4)
    assert pick_depth(Code(zero)).text == "0" and pick_header(Code(zero)).text == "0"
    assert pick_persona(Code(zero), CLASSIC.request_personas()) is OMIT
    assert pick_output_schema(Code(zero)) is OMIT
    assert pick_optional_depth(Code(zero)) is None
    assert set(DEPTH_POOL) >= set(EDGE_TEXTS)
