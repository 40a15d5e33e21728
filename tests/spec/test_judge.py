"""The judge of executable examples (spec/judge.py): each oracle's given/observed shapes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.spec import Example, check_depth, judge
from subagent_tck.spec.judge import JUDGES
from subagent_tck.spec.rule import OracleKind

FAST = settings(max_examples=40, deadline=None)


def verdict(oracle: OracleKind, given_: dict[str, Any], observed: Any) -> bool:
    return judge(Example(title="t", oracle=oracle, given=given_, observed=observed, holds=True))


def test_every_oracle_kind_has_a_judge() -> None:
    assert set(JUDGES) == set(OracleKind.__args__)  # type: ignore[attr-defined]


def test_a_narrative_example_cannot_be_judged() -> None:
    with pytest.raises(ValueError, match="narrative"):
        judge(Example(title="story", holds=True))


def test_an_invalid_restriction_in_an_example_is_a_mistake_of_the_example() -> None:
    with pytest.raises(ValueError, match="itself invalid"):
        verdict("view", {"globals": ["a"], "restrictions": [{"allow": ["b"]}]}, ["a"])


def test_a_removed_global_keeps_its_restriction_valid() -> None:
    given_ = {"globals": ["a"], "removed": ["b"], "restrictions": [{"allow": ["a", "b"]}]}
    assert verdict("view", given_, ["a"])
    assert not verdict("view", given_, ["a", "b"])


def test_the_view_judge_reads_origins_and_refuses_duplicates() -> None:
    given_ = {"globals": ["a", "b"], "locals": ["b"], "mode": "ptc"}
    assert verdict("view", given_, ["b:local", "a", "run_code:reserved"])
    assert not verdict("view", given_, ["a", "b", "run_code:reserved"])
    assert not verdict("view", given_, ["a", "b:local", "b:local", "run_code:reserved"])


def test_the_wire_judge_compares_schemas_and_sdk() -> None:
    given_ = {"globals": ["a"], "mode": "native"}
    assert verdict("wire", given_, {"schemas": ["a"], "sdk": []})
    assert not verdict("wire", given_, {"schemas": ["a"], "sdk": ["a"]})
    assert not verdict("wire", given_, {"schemas": [], "sdk": []})


def test_the_restriction_judge_needs_the_code_and_every_offender() -> None:
    bad = {"globals": ["a"], "restriction": {"allow": ["x", "y"]}}
    assert verdict("restriction", bad, {"code": "INVALID_TOOL_FILTER", "offending": ["y", "x"]})
    assert not verdict("restriction", bad, {"code": "INVALID_TOOL_FILTER", "offending": ["x"]})
    assert not verdict("restriction", bad, {"code": "INVALID_DEPTH", "offending": ["x", "y"]})
    assert not verdict("restriction", bad, {"ok": True})
    good = {"globals": ["a"], "restriction": {"allow": ["a"]}}
    assert verdict("restriction", good, {"ok": True})
    assert not verdict("restriction", good, {"code": "INVALID_TOOL_FILTER"})


@FAST
@given(st.one_of(st.integers(-3, 2**54), st.floats(), st.booleans(), st.none(), st.text()))
def test_the_depth_judges_follow_check_depth(value: object) -> None:
    expected = check_depth(value)
    observed = {"accepted": expected.value} if expected.ok else {"rejected": True}
    assert verdict("depth", {"value": value}, observed)
    assert not verdict("depth", {"value": value}, {"rejected": True} if expected.ok else {
        "accepted": 0})


def test_the_depth_json_judge_reads_raw_text() -> None:
    assert verdict("depth-json", {"json": "1e2"}, {"accepted": 100})
    assert not verdict("depth-json", {"json": "1e2"}, {"accepted": 1})
    assert verdict("depth-json", {"json": "NaN"}, {"rejected": True})
    assert not verdict("depth-json", {"json": "NaN"}, {})


def test_the_start_depth_judge_compares_depth_or_code() -> None:
    assert verdict("start-depth", {"header": 1, "runtime": 2}, {"childDepth": 3})
    assert not verdict("start-depth", {"header": 0, "maxDepth": 0}, {"childDepth": None})
    assert verdict("start-depth", {"header": 0, "maxDepth": 0}, {"code": "DEPTH_EXCEEDED"})
    assert not verdict("start-depth", {"header": 0}, {"code": "DEPTH_EXCEEDED"})


START = {
    "edition": "request-controls",
    "providers": {"spawn": ["depthLimit", "persona"]},
    "presets": {"p": {"persona": "P."}},
    "parent": {"header": 1, "runtime": 2},
    "request": {"provider": "spawn", "preset": "p", "maxDepth": 3},
}


def test_the_start_judge_reads_the_parent_and_presets() -> None:
    assert verdict("start", START, {"ok": True, "childDepth": 3})
    assert verdict("start", START, {"ok": True})
    assert not verdict("start", START, {"ok": True, "childDepth": 2})
    assert not verdict("start", START, {"code": "DEPTH_EXCEEDED"})
    deeper = {**START, "parent": {"header": 3}}
    assert verdict("start", deeper, {"code": "DEPTH_EXCEEDED"})
    assert not verdict("start", deeper, {"ok": True})


def test_the_start_judge_defaults_to_the_preset_edition() -> None:
    given_ = {"providers": {"spawn": ["persona"]}, "request": {"provider": "spawn", "persona": ""}}
    assert verdict("start", given_, {"code": "REQUEST_CONTROLS_REFUSED"})


def test_the_persona_judge_compares_text_or_code() -> None:
    assert verdict("persona", {"deployment": "D {{v}}", "variables": {"v": "1"}}, {"text": "D 1"})
    assert not verdict("persona", {"deployment": "D {{v}}"}, {"text": "D {{v}}"})
    assert verdict("persona", {"deployment": "D {{v}}"}, {"code": "INVALID_TEMPLATE"})
    assert not verdict("persona", {"deployment": "D"}, {"code": "INVALID_TEMPLATE"})
    assert verdict("persona", {"deployment": None}, {"text": None})
    assert not verdict("persona", {}, {"code": "INVALID_TEMPLATE"})
    assert not verdict("persona", {}, {"text": "anything"})


def test_a_spaced_placeholder_is_substituted_or_refused_never_sent_raw() -> None:
    """docs/rules.md#PE-05: ``{{ v }}`` is the implementation's grammar (DSH refuses it)."""
    given_ = {"deployment": "D {{ v }}", "variables": {"v": "1"}}
    assert verdict("persona", given_, {"text": "D 1"})
    assert verdict("persona", given_, {"code": "INVALID_TEMPLATE"})
    assert not verdict("persona", given_, {"text": "D {{ v }}"})
    assert not verdict("persona", given_, {"code": "INVALID_CONFIG"})


def test_the_sections_judge_compares_in_order() -> None:
    given_ = {"inherited": [["p", "D"], ["g", "G"]], "scoped": [["p", "C"]]}
    assert verdict("sections", given_, [["p", "C"], ["g", "G"]])
    assert not verdict("sections", given_, [["g", "G"], ["p", "C"]])
