"""Which way a control failed (docs/matrix.md#which-way-a-control-failed): read from the
failing assertion's values, with hints only where the values cannot tell.

The explicit examples are the failures every broken target of the zoo (examples/providers/)
gives at seed 0 for the rule it breaks (``fixtures/zoo_failures.json``, made by certifying each
entry with ``--rule BREAKS --seed 0``; two values of 100 kB left out), each entry with the
direction its bug fails in, decided by reading the bug: a control that lets the child have more
is open, one that withholds or refuses is closed. The properties draw the values themselves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from subagent_tck.conformance.core.fail_direction import HINTS, Direction, classify, worst
from subagent_tck.conformance.engine.checks import load_checks
from subagent_tck.spec import RULES_BY_ID, ErrorCode

ZOO = json.loads((Path(__file__).parent / "fixtures" / "zoo_failures.json")
                 .read_text(encoding="utf-8"))
OPEN, CLOSED = Direction.OPEN, Direction.CLOSED
#: The broken zoo entries whose bug lets the control fail open, more than allowed reaching the
#: child: tools past a filter, starts past a gate or a cap, raw placeholders, another persona, a
#: child that keeps running.
OPEN_BUGS = (
    "abort_not_bridged", "allow_admits_later_tools", "background_flag_skips_cap",
    "cap_mounted_without_depth_limit", "cap_not_validated", "case_insensitive_allow",
    "child_locals_leak_to_parent", "deny_before_allow", "deny_skips_unfamiliar_names",
    "depth_not_recorded", "descriptor_controls_ungated", "dispose_lifts_all",
    "duplicate_tool_name_replaces", "empty_persona_ignored", "empty_variable_left_raw",
    "fallback_provider", "filter_checked_against_parent_view", "global_wins_over_local",
    "leaks_run_on_error", "local_names_accepted", "lower_case_variables_only",
    "malformed_depth_read_as_zero", "malformed_placeholder_passthrough",
    "no_op_filter_accepted", "no_overflow_check", "no_rollback_on_bad_template",
    "partial_output_as_success", "persona_after_publish", "persona_as_second_channel",
    "persona_leaks_to_parent", "preset_lookup_falls_back", "provider_called_before_gate",
    "provider_matched_by_identity", "request_filter_dropped", "request_persona_accepted",
    "resume_forgets_depth", "resume_rederives_depth", "resume_without_descriptor",
    "run_code_bindings_frozen", "run_code_in_global_view", "run_code_reaches_hidden_global",
    "run_code_registrable", "run_code_runs_global_under_local", "runtime_depth_unchecked",
    "runtime_overrides_header", "schemas_only_filter", "session_before_cap_check",
    "shadow_restore_resurrects_global", "stale_allowed_tools", "stale_view_after_dispose",
    "tool_controls_not_forwarded", "tool_exposes_provider_param",
    "tool_filter_silently_dropped", "tool_ignores_live_depth", "tool_outlives_provider",
    "tool_registered_before_provider", "union_of_restrictions",
)
#: The broken zoo entries whose bug lets the control fail closed, less reaching the child (the
#: guard holds): tools hidden, valid starts refused, a persona dropped, a refusal misreported,
#: guidance wrong.
CLOSED_BUGS = (
    "allow_filters_locals", "at_cap_hides_tool", "cap_decided_before_gate", "cap_refuses_equal",
    "default_cap_when_omitted", "deny_freezes_admitted", "empty_allow_hides_locals",
    "first_offender_only", "ignores_output_schema", "notice_for_an_unseen_tool",
    "notice_on_every_request", "notice_only_past_cap", "null_list_read_as_empty",
    "omitted_persona_dropped",
    "run_code_after_first_request", "sdk_bindings_cached", "sections_sorted_by_name",
    "tool_lookup_by_identity", "tools_frozen_per_turn", "wording_ignores_fork",
)
#: Each broken zoo entry: which way its bug lets the control fail.
BUGS = {**dict.fromkeys(OPEN_BUGS, OPEN), **dict.fromkeys(CLOSED_BUGS, CLOSED)}


def direction_of(failures: list[dict[str, Any]]) -> Direction | None:
    return worst(classify(f["rule"], f["check"], f["expected"], f["observed"], f["error"])
                 .direction for f in failures)


def test_every_broken_zoo_entry_has_a_direction_decided_by_reading_its_bug() -> None:
    assert sorted(OPEN_BUGS + CLOSED_BUGS) == sorted(ZOO)  # each once, in one direction


@pytest.mark.parametrize("entry", sorted(ZOO))
def test_a_broken_zoo_entry_fails_in_the_direction_of_its_bug(entry: str) -> None:
    assert direction_of(ZOO[entry]) == BUGS[entry], [
        (f["check"], classify(f["rule"], f["check"], f["expected"], f["observed"]).basis)
        for f in ZOO[entry]]


def test_every_hint_names_a_registered_check_that_judges_guidance_only() -> None:
    registry = load_checks()
    assert set(HINTS) <= set(registry), sorted(set(HINTS) - set(registry))
    for name in HINTS:
        assert set(registry[name].rules) <= {"ST-03", "ST-08"}, name


def test_an_error_of_the_target_has_no_direction() -> None:
    reading = classify("TF-01", "tool-filter-allow-before-deny", ["a"], ["a", "b"], error=True)
    assert reading.direction is None
    assert worst([None, None]) is None


# --- properties: the values decide ---------------------------------------------------------

NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Zs", "Cc")),
                min_size=1, max_size=12)
ORIGINS = st.sampled_from(["global", "local", "reserved"])
VIEWS = st.dictionaries(NAMES, ORIGINS, min_size=1, max_size=8)
CODES = st.sampled_from([c.value for c in ErrorCode])
RULES = st.sampled_from(sorted(RULES_BY_ID))
CHECK = "a-check-of-no-hint"


def view(entries: dict[str, str]) -> list[list[str]]:
    return [[name, origin] for name, origin in sorted(entries.items())]


@given(RULES, VIEWS, NAMES, ORIGINS)
def test_a_view_with_a_tool_more_than_expected_failed_open(
        rule: str, entries: dict[str, str], extra: str, origin: str) -> None:
    expected = {k: v for k, v in entries.items() if k != extra}
    observed = {**expected, extra: origin}
    assert classify(rule, CHECK, view(expected), view(observed)).direction == OPEN


@given(RULES, VIEWS, st.data())
def test_a_view_with_a_tool_less_than_expected_failed_closed(
        rule: str, entries: dict[str, str], data: st.DataObject) -> None:
    missing = data.draw(st.sampled_from(sorted(entries)))
    observed = {k: v for k, v in entries.items() if k != missing}
    assert classify(rule, CHECK, view(entries), view(observed)).direction == CLOSED


@given(RULES, st.lists(CODES, min_size=1, max_size=3), st.dictionaries(
    st.sampled_from(["agent", "session", "depth", "output"]), st.integers() | NAMES))
def test_an_acceptance_where_a_refusal_was_due_failed_open(
        rule: str, codes: list[str], accepted: dict[str, Any]) -> None:
    for expected in (codes[0], codes, f"an {codes[0]} error", {"isError": True}):
        assert classify(rule, CHECK, expected, accepted).direction == OPEN
        assert classify(rule, CHECK, expected, None).direction == OPEN


@given(RULES, CODES, CODES, NAMES)
def test_a_refusal_is_closed_whether_or_not_one_was_due(
        rule: str, due: str, given_code: str, message: str) -> None:
    body = {"code": given_code, "message": message}
    assert classify(rule, CHECK, due, body).direction == CLOSED
    assert classify(rule, CHECK, {"childDepth": 1}, body).direction == CLOSED
    assert classify(rule, CHECK, "accepted", {"tool message": {"isError": True}}).direction \
        == CLOSED


@given(st.sampled_from([r for r in RULES_BY_ID if r.startswith("DE-")]),
       st.integers(0, 2**53), st.integers(1, 2**53))
# found by a random draw: 2**53 and 2**53 + 1 were one float, so "shallower" read as closed
@example("DE-01", 2**53, 1)
def test_a_depth_shallower_than_expected_failed_open_and_deeper_closed(
        rule: str, depth: int, gap: int) -> None:
    assert classify(rule, CHECK, depth + gap, depth).direction == OPEN
    assert classify(rule, CHECK, depth, depth + gap).direction == CLOSED
    assert classify(rule, CHECK, {"agent": depth + gap, "header": depth + gap},
                    {"agent": depth, "header": depth + gap}).direction == OPEN


@given(st.sampled_from([r for r in RULES_BY_ID if not r.startswith("DE-")]),
       st.sampled_from(["probe calls", "child model requests", "sessions added"]),
       st.integers(0, 100), st.integers(1, 100))
def test_a_count_higher_than_expected_failed_open_and_lower_closed(
        rule: str, key: str, count: int, more: int) -> None:
    assert classify(rule, CHECK, {key: count}, {key: count + more}).direction == OPEN
    assert classify(rule, CHECK, {key: count + more}, {key: count}).direction == CLOSED
    # a depth is a depth in any family when its key says so
    assert classify(rule, CHECK, {"childDepth": count + more},
                    {"childDepth": count}).direction == OPEN


@given(RULES, st.lists(NAMES, min_size=1, max_size=6), NAMES)
@example("CA-01", ["SETUP"], "FAILED")
def test_text_with_words_more_than_expected_failed_open_and_with_fewer_closed(
        rule: str, words: list[str], extra: str) -> None:
    # a text naming an error code reads as that refusal (another test's matter): Hypothesis
    # draws the kit's own string constants too, and drew ['SETUP_FAILED']
    assume(not {*words, extra} & {code.value for code in ErrorCode})
    persona = " ".join(words)
    grown = f"{persona} {{{{{extra}}}}}"  # a raw placeholder left in
    assert classify(rule, CHECK, persona, grown).direction == OPEN
    assert classify(rule, CHECK, grown, persona).direction == CLOSED
    assert classify(rule, CHECK, [["persona", persona]], [["persona", ""]]).direction == CLOSED


@given(RULES, st.dictionaries(NAMES, st.booleans(), min_size=1, max_size=5), st.data())
def test_a_flag_set_that_should_not_be_failed_open(
        rule: str, flags: dict[str, bool], data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(flags)))
    cleared, raised = {**flags, key: False}, {**flags, key: True}
    assert classify(rule, CHECK, cleared, raised).direction == OPEN
    assert classify(rule, CHECK, raised, cleared).direction == CLOSED


@given(RULES, VIEWS)
def test_the_same_facts_in_another_order_failed_closed(rule: str,
                                                       entries: dict[str, str]) -> None:
    reading = classify(rule, CHECK, view(entries), list(reversed(view(entries))))
    assert reading.direction == CLOSED
    assert reading.basis.startswith("values: nothing beyond")


@given(st.sampled_from(sorted(HINTS)), RULES, VIEWS, VIEWS)
def test_a_hinted_check_is_closed_whatever_its_values(check: str, rule: str,
                                                      a: dict[str, str],
                                                      b: dict[str, str]) -> None:
    reading = classify(rule, check, view(a), view(b))
    assert reading.direction == CLOSED and reading.basis.startswith("hint:")


def test_a_cell_is_open_when_any_assertion_is() -> None:
    assert worst([CLOSED, None, OPEN]) == OPEN
    assert worst([CLOSED, None]) == CLOSED
