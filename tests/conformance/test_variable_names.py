"""A target whose template variable grammar is narrower than the oracle's (docs/certify.md#
generated-cases): found once before the checks, then given drawn cases of portable names only,
so that its drawn cases are about the rules (not refused one by one) and a bug it has with
portable names is found at any seed."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings

from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine import variable_names
from subagent_tck.conformance.engine.check import PORTABLE_VARIABLE
from subagent_tck.conformance.engine.checks._texts import template_cases, vocabularies
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.report import report_json, report_junit, report_markdown, report_text
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.prompt import render_strict
from subagent_tck.spec import Edition, ErrorCode, TckError

ROOT = Path(__file__).resolve().parents[2]


class _NarrowGrammarHost(Host):
    """Refuses variable names outside ``[a-z][a-z0-9_]*`` (as DSH does)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        refused = [n for n in kwargs.get("variables") or {} if not PORTABLE_VARIABLE.fullmatch(n)]
        if refused:
            raise TckError(ErrorCode.INVALID_TEMPLATE, f"bad variable names {refused}",
                           {"offending": refused})
        super().__init__(*args, **kwargs)


_LETTERS_ONLY = re.compile(r"\{\{\s*([a-z]+)\s*\}\}")


def _letters_only(template: str, variables: Mapping[str, str], what: str) -> str:
    render_strict(template, variables, what)  # unknown or malformed: refused
    # the bug: a portable name with a digit or '_' (team_2, role2) is never substituted
    return _LETTERS_ONLY.sub(lambda m: variables.get(m.group(1), m.group(0)), template)


class _NarrowAndLettersOnlyHost(_NarrowGrammarHost):
    render_template = staticmethod(_letters_only)


class _RefusesEveryPersona(Host):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("persona"):
            raise TckError(ErrorCode.INVALID_CONFIG, "no personas here")
        super().__init__(*args, **kwargs)


def test_the_probe_finds_a_target_that_refuses_names_outside_the_portable_set() -> None:
    edition = Edition.PRESET_COMPOSITION
    assert variable_names.refuses_unportable(ReferenceTarget(host_class=_NarrowGrammarHost),
                                             edition)
    assert not variable_names.refuses_unportable(ReferenceTarget(), edition)


def test_a_probe_refused_for_another_reason_says_nothing_of_the_grammar() -> None:
    target = ReferenceTarget(host_class=_RefusesEveryPersona)
    assert not variable_names.refuses_unportable(target, Edition.PRESET_COMPOSITION)


class _CrashingTarget:
    def info(self) -> Any:
        return ReferenceTarget().info()

    def deploy(self, config: Any, gateway: Any) -> Any:
        raise RuntimeError("the adapter crashed")

    def close(self) -> None:
        pass


def test_a_probe_that_crashes_the_target_says_nothing_of_the_grammar() -> None:
    # the checks meet the crash themselves, as errors of the target
    assert not variable_names.refuses_unportable(_CrashingTarget(), Edition.PRESET_COMPOSITION)


def test_the_probes_names_are_all_outside_the_portable_set() -> None:
    assert not any(PORTABLE_VARIABLE.fullmatch(n) for n in variable_names.PROBE_VARIABLES)


@settings(max_examples=60, database=None)
@given(vocabularies(portable=True), template_cases(portable=True))
def test_portable_vocabularies_name_only_portable_variables(vocabulary: Any, case: Any) -> None:
    for names in (vocabulary.variables, case[1].variables):
        assert all(PORTABLE_VARIABLE.fullmatch(n) for n in names), names


def test_the_oracles_wider_grammar_is_still_drawn_for_a_target_that_accepts_it() -> None:
    # find one of each (not a count of draws, which can miss by chance): the first found
    generate = settings(max_examples=2000, database=None, deadline=None, phases=[Phase.generate])
    for portable in (True, False):
        find(vocabularies(), lambda v, p=portable: any(
            bool(PORTABLE_VARIABLE.fullmatch(n)) is p for n in v.variables), settings=generate)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_narrow_grammar_target_wrong_for_portable_names_with_digits_fails_pe_05(
        seed: int) -> None:
    # The fixed cases name team and role only (letters): only drawn cases can find this bug,
    # and on this target every drawn case of the wider grammar would be refused.
    target = ReferenceTarget(host_class=_NarrowAndLettersOnlyHost, name="narrow-letters-only")
    cert = certify(target, RunConfig(target_spec="narrow", seed=seed, rules=("PE-05",)))
    result = cert.rule("PE-05")
    assert result.outcome is Outcome.FAIL, [f.message for f in result.failures]
    assert any(f.example for f in result.failures)


class _CountingNarrowHost(_NarrowGrammarHost):
    refusals = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().__init__(*args, **kwargs)
        except TckError:
            type(self).refusals += 1
            raise


def test_a_narrow_grammar_target_passes_and_only_the_probe_is_refused_for_its_names() -> None:
    target = ReferenceTarget(host_class=_CountingNarrowHost, name="narrow")
    rules = ("PE-01", "PE-05", "FR-01", "EN-01")
    cert = certify(target, RunConfig(target_spec="narrow", seed=3, rules=rules))
    assert {r: cert.rule(r).outcome for r in rules} == dict.fromkeys(rules, Outcome.PASS)
    # every drawn case named portable variables: none was refused and drawn again
    assert _CountingNarrowHost.refusals == 1


def test_every_report_says_when_the_drawn_variable_names_were_portable_only() -> None:
    narrow = certify(ReferenceTarget(host_class=_NarrowGrammarHost, name="narrow"),
                     RunConfig(target_spec="narrow", seed=1, rules=("PE-02",)))
    wide = certify(ReferenceTarget(), RunConfig(target_spec="reference", seed=1,
                                                rules=("PE-02",)))
    assert narrow.portable_variables and not wide.portable_variables
    assert json.loads(report_json.render(narrow))["portable_variables"] is True
    assert "variable names: the target refused names outside [a-z][a-z0-9_]*" in (
        report_text.render(narrow))
    assert "variable names:" not in report_text.render(wide)
    assert "**Variable names**: the target refused names outside `[a-z][a-z0-9_]*`" in (
        report_markdown.render(narrow))
    junit = ET.fromstring(report_junit.render(narrow))
    assert {p.get("name"): p.get("value") for p in junit.iter("property")}[
        "portable_variables"] == "true"
