"""Baselines pinned per assertion (docs/baseline.md): the file's format, every mistake a usage
error naming the entry and the fix, and what a run makes of an entry: excused, new inside a
listed rule, stale, expired, a whole rule counted apart."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from subagent_tck.conformance.core import fingerprint
from subagent_tck.conformance.core.baseline import load_baseline, parse_baseline
from subagent_tck.conformance.core.baseline_judge import BaselineSummary, judge
from subagent_tck.conformance.core.baseline_write import write
from subagent_tck.conformance.core.certificate import Certificate
from subagent_tck.conformance.core.exitcode import ExitCode, for_certificate
from subagent_tck.conformance.core.outcome import Evidence, Failure, Outcome
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.report import report_json, report_junit, report_markdown, report_text
from subagent_tck.spec import ErrorCode, TckError

ROOT = Path(__file__).resolve().parents[2]
FP = "0123456789ab"
ENTRY = f'[[expected-fail]]\nrule = "TF-07"\nreason = "x"\nassertions = ["{FP}"]\n'


def usage(text: str, rules: dict[str, object] | None = None) -> str:
    with pytest.raises(TckError) as caught:
        parse_baseline(text, "b.toml", rules)
    assert caught.value.code == ErrorCode.USAGE
    return caught.value.message


def test_entries_are_read_with_their_assertions_position_and_line() -> None:
    baseline = parse_baseline(
        '# known\ncatalogue_hash = "abc"\n[[expected-fail]]\nrule = "tf-07"\n'
        'reason = "accepts null"\ntracking = "https://example.org/1"\nuntil = 2031-01-02\n'
        f'assertions = [{{ fingerprint = "{FP}", check = "c", case = "fixed", what = "w", '
        'way = "accepted" }, "ba9876543210"]\n\n'
        '[[expected-fail]]\nrule = "PE-03"\nreason = "truthy"\nprovider = "spawn"\n'
        'scope = "rule"\n')
    first, second = baseline.entries
    assert baseline.catalogue_hash == "abc"
    assert (first.rule, first.reason, first.provider, first.number, first.line) == (
        "TF-07", "accepts null", None, 1, 3)
    assert (first.tracking, first.until) == ("https://example.org/1", date(2031, 1, 2))
    assert [p.fingerprint for p in first.assertions] == [FP, "ba9876543210"]
    assert first.assertions[0].describe() == f"{FP} (c [fixed]: w → accepted)"
    assert first.names(FP) and not first.names("ffffffffffff") and not first.whole_rule
    assert (second.rule, second.provider, second.line, second.whole_rule) == (
        "PE-03", "spawn", 10, True)
    assert second.covers("PE-03", "spawn") and not second.covers("PE-03", "fork")
    assert first.covers("TF-07", None) and first.covers("TF-07", "fork")


def test_an_empty_file_is_an_empty_baseline() -> None:
    assert parse_baseline("").entries == ()


def test_malformed_toml_is_a_usage_error_showing_the_shape() -> None:
    message = usage("[[expected-fail]\nrule = ")
    assert "not valid TOML" in message and "line 1" in message
    assert '[[expected-fail]]\nrule = "TF-07"' in message


def test_a_missing_reason_names_the_entry_line_and_fix() -> None:
    message = usage(ENTRY + '[[expected-fail]]\nrule = "TF-08"\n')
    assert "entry 2 (line 5)" in message and "missing `reason`" in message
    assert "reason = " in message


def test_an_entry_of_the_old_format_names_the_command_that_pins_it() -> None:
    message = usage('[[expected-fail]]\nrule = "TF-07"\nreason = "x"\n')
    assert "names no assertion" in message
    assert "subagent-tck baseline update FILE CERTIFICATE.json" in message
    assert 'scope = "rule"' in message
    old = parse_baseline('[[expected-fail]]\nrule = "TF-07"\nreason = "x"\n', legacy=True)
    assert old.entries[0].legacy


def test_an_unknown_rule_id_is_a_usage_error() -> None:
    message = usage(ENTRY.replace("TF-07", "TF-77"), {"TF-07": object()})
    assert "entry 1 (line 1)" in message and "unknown rule id 'TF-77'" in message


@pytest.mark.parametrize(("text", "needle"), [
    (ENTRY + 'why = "y"\n', "unknown key(s) why"),
    ('title = "mine"\n', "unexpected top-level key(s) title"),
    ("catalogue_hash = 3\n", "`catalogue_hash` must be a string"),
    ('expected-fail = "TF-07"\n', "must be an array of tables"),
    ('expected-fail = ["TF-07"]\n', "must be a table"),
    ('[[expected-fail]]\nreason = "x"\nscope = "rule"\n', "missing `rule`"),
    (ENTRY + "provider = 3\n", "`provider` must be"),
    (ENTRY + "tracking = 3\n", "`tracking` must be"),
    (ENTRY + 'until = "soon"\n', "`until` must be a date"),
    (ENTRY + 'scope = "all"\n', '`scope` must be "rule"'),
    (ENTRY + 'scope = "rule"\n', "drop `assertions`"),
    (ENTRY.replace(f'"{FP}"', '"XYZ"'), "not 12 lower-case hex digits"),
    (ENTRY.replace(f'"{FP}"', f'"{FP}", "{FP}"'), "listed twice"),
    (ENTRY.replace(f'"{FP}"', "3"), "must be a fingerprint or a table"),
    (ENTRY.replace(f'"{FP}"', f'{{ fingerprint = "{FP}", who = "x" }}'), "unknown key(s) who"),
    (ENTRY.replace(f'"{FP}"', f'{{ fingerprint = "{FP}", check = 1 }}'), "must be a string"),
    (ENTRY.replace(f'["{FP}"]', '"x"'), "must be an array"),
    (ENTRY.replace(f'["{FP}"]', "[]"), "`assertions` is empty"),
    (ENTRY + ENTRY, f"assertion {FP} of rule TF-07 is named by entry 1"),
    ('[[expected-fail]]\nrule = "TF-07"\nreason = "x"\nscope = "rule"\n' + ENTRY,
     "duplicates entry 1"),
])
def test_every_other_mistake_is_a_usage_error(text: str, needle: str) -> None:
    assert needle in usage(text)


def test_two_entries_of_one_rule_may_name_different_assertions() -> None:
    other = ENTRY.replace(FP, "ba9876543210").replace('"x"', '"another cause"')
    assert len(parse_baseline(ENTRY + other).entries) == 2


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(TckError, match="not found: check the path"):
        load_baseline(tmp_path / "nope.toml")


# --- what a run makes of it (the fake suite) ---------------------------------------------


def _written(cert: Certificate, tmp_path: Path, reason: str = "known since 1.2",
             edit: tuple[str, str] = ("", "")) -> Path:
    """The baseline `baseline write` makes of ``cert`` (with one textual edit)."""
    text, _ = write(cert, reason, "c.json")
    file = tmp_path / "baseline.toml"
    file.write_text(text.replace(*edit) if edit[0] else text, encoding="utf-8")
    return file


def _broken_until(fakes: ModuleType, rule: str, tmp_path: Path,
                  until: str) -> tuple[Any, Path]:
    """A target that breaks ``rule`` on spawn, and the baseline of its run, its entries valid
    until ``until``."""
    target = fakes.FakeTarget({(rule, "spawn"): "break"})
    return target, _written(certify(target, RunConfig()), tmp_path,
                            edit=('reason = "known since 1.2"', 'reason = "known since 1.2"\n'
                                  f"until = {until}"))


def _rerun(fakes: ModuleType, tmp_path: Path, rule: str, after: str | None) -> Certificate:
    """Certify a target that does ``after`` on ``rule`` (on spawn; None: it passes the rule)
    with the baseline written from the run of one that breaks it."""
    file = _written(certify(fakes.FakeTarget({(rule, "spawn"): "break"}), RunConfig()),
                    tmp_path)
    return certify(fakes.FakeTarget({(rule, "spawn"): after} if after else None),
                   RunConfig(baseline=load_baseline(file)))


def test_a_baseline_written_from_a_certificate_excuses_exactly_its_failures(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    target = fakes.FakeTarget({("TF-92", "spawn"): "break-also"})
    file = _written(certify(target, RunConfig()), tmp_path)
    cert = certify(target, RunConfig(baseline=load_baseline(file)))
    result = cert.rule("TF-92")
    assert result.outcome == Outcome.EXPECTED_FAIL
    assert result.providers[0].reason == "known since 1.2"
    assert result.failures and result.replay is None  # the evidence stays in the certificate
    assert cert.certified and for_certificate(cert) == ExitCode.CERTIFIED
    assert cert.baseline == str(file)
    summary = cert.baseline_summary
    assert summary is not None and summary.holds
    assert summary.counts() == {"excused": 2, "whole_rule": 0, "new": 0, "stale": 0,
                                "expired": 0, "unseen": 0}


def test_one_more_failing_assertion_inside_a_listed_rule_fails_naming_it(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    cert = _rerun(fakes, tmp_path, "TF-92", "break-also")
    assert cert.rule("TF-92").outcome == Outcome.FAIL
    assert not cert.certified and for_certificate(cert) == ExitCode.FAILED
    summary = cert.baseline_summary
    assert summary is not None and [n.assertion.what for n in summary.new] == [
        "TF-# broken once more"]
    assert summary.new[0].listed and summary.new[0].assertion.way == "differs: extra"
    assert "1 failing assertion(s) no entry of baseline" in cert.rule("TF-92").providers[0].reason


def test_an_assertion_that_starts_failing_another_way_is_new_and_the_old_one_stale(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    cert = _rerun(fakes, tmp_path, "TF-91", "refuse")
    summary = cert.baseline_summary
    assert summary is not None
    new = {(n.rule, n.assertion.what, n.assertion.way) for n in summary.new}
    assert ("TF-91", "unexpected refusal", "refused INVALID_REQUEST") in new
    assert [(s.rule, s.why) for s in summary.stale] == [
        ("TF-91", "no longer occurs (the rule fails in other ways)")]
    assert for_certificate(cert) == ExitCode.FAILED


def test_a_listed_assertion_that_passes_is_stale_and_fails_the_run(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    cert = _rerun(fakes, tmp_path, "TF-93", None)
    result = cert.rule("TF-93")  # a SHOULD rule: a stale entry still fails the run
    assert result.outcome == Outcome.UNEXPECTED_PASS
    assert "but it passed: remove it" in result.failures[0].message
    assert "fake-filter [fixed]: TF-# broken → differs" in result.failures[0].message
    assert not cert.certified and for_certificate(cert) == ExitCode.FAILED
    summary = cert.baseline_summary
    assert summary is not None and len(summary.stale) == 1 and not summary.holds


def test_an_expired_entry_excuses_nothing_and_fails_the_run(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    target, file = _broken_until(fakes, "TF-92", tmp_path, "2001-01-01")
    cert = certify(target, RunConfig(baseline=load_baseline(file)))
    assert cert.rule("TF-92").outcome == Outcome.FAIL
    assert "expired on 2001-01-01" in cert.rule("TF-92").providers[0].reason
    assert cert.baseline_summary is not None and len(cert.baseline_summary.expired) == 1
    assert for_certificate(cert) == ExitCode.FAILED
    healed = certify(fakes.FakeTarget(), RunConfig(baseline=load_baseline(file)))
    assert healed.rule("TF-92").outcome == Outcome.FAIL  # expired fails even once it passes
    assert for_certificate(healed) == ExitCode.FAILED


def test_an_entry_until_a_later_date_still_excuses(fakes: ModuleType, tmp_path: Path) -> None:
    target, file = _broken_until(fakes, "TF-92", tmp_path, "2999-12-31")
    assert certify(target, RunConfig(baseline=load_baseline(file))).certified


def test_a_whole_rule_entry_excuses_every_assertion_and_is_counted_apart(
    fakes: ModuleType,
) -> None:
    baseline = parse_baseline('[[expected-fail]]\nrule = "TF-92"\nreason = "all of it"\n'
                              'scope = "rule"\n')
    cert = certify(fakes.FakeTarget({("TF-92", "spawn"): "break-also"}),
                   RunConfig(baseline=baseline))
    assert cert.rule("TF-92").outcome == Outcome.EXPECTED_FAIL and cert.certified
    summary = cert.baseline_summary
    assert summary is not None and (len(summary.whole_rule), len(summary.excused)) == (2, 0)
    stale = certify(fakes.FakeTarget(), RunConfig(baseline=baseline))
    assert stale.rule("TF-92").outcome == Outcome.UNEXPECTED_PASS
    assert "excuses the whole rule, but it passed" in stale.rule("TF-92").failures[0].message


def test_a_provider_narrowed_entry_covers_only_that_provider(fakes: ModuleType) -> None:
    baseline = parse_baseline(
        '[[expected-fail]]\nrule = "CA-91"\nreason = "acp is old"\nprovider = "acp"\n'
        'scope = "rule"\n')
    cert = certify(fakes.FakeTarget({("CA-91", "*"): "break"}), RunConfig(baseline=baseline))
    by_provider = {p.provider: p.outcome for p in cert.rule("CA-91").providers}
    assert by_provider == {"spawn": Outcome.FAIL, "acp": Outcome.EXPECTED_FAIL}
    assert not cert.certified


def test_an_entry_for_an_unknown_provider_is_a_usage_error(fakes: ModuleType) -> None:
    baseline = parse_baseline(ENTRY.replace("TF-07", "CA-91") + 'provider = "spwan"\n')
    with pytest.raises(TckError, match="no provider 'spwan': use one of spawn, acp"):
        certify(fakes.FakeTarget(), RunConfig(baseline=baseline))


def test_an_entry_without_provider_leaves_the_passing_providers_passing(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    target = fakes.FakeTarget({("CA-91", "acp"): "break"})
    file = _written(certify(target, RunConfig()), tmp_path,
                    edit=('provider = "acp"\n', ""))
    cert = certify(target, RunConfig(baseline=load_baseline(file)))
    by_provider = {p.provider: p.outcome for p in cert.rule("CA-91").providers}
    assert by_provider == {"spawn": Outcome.PASS, "acp": Outcome.EXPECTED_FAIL}
    assert cert.certified and for_certificate(cert) == ExitCode.CERTIFIED


def test_an_expired_entry_of_a_should_rule_fails_the_run_too(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    target, file = _broken_until(fakes, "TF-93", tmp_path, "2001-01-01")
    cert = certify(target, RunConfig(baseline=load_baseline(file)))
    assert for_certificate(cert) == ExitCode.FAILED
    root = ET.fromstring(report_junit.render(cert))
    assert root.get("failures") == "1"


def test_every_report_shows_what_is_new_stale_and_expired_and_agrees_with_the_exit_code(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    before = certify(fakes.FakeTarget({("TF-92", "spawn"): "break", ("PE-91", "spawn"): "break",
                                       ("DE-91", "spawn"): "break"}), RunConfig())
    file = _written(before, tmp_path)
    text = file.read_text("utf-8")
    head = text.index('rule = "DE-91"')
    file.write_text(text[:head] + "until = 2001-01-01\n" + text[head:], "utf-8")
    cert = certify(fakes.FakeTarget({("TF-92", "spawn"): "break-also", ("DE-91", "spawn"):
                                     "break"}), RunConfig(baseline=load_baseline(file)))
    assert for_certificate(cert) == ExitCode.FAILED
    summary = cert.baseline_summary
    assert summary is not None
    assert (len(summary.new), len(summary.stale), len(summary.expired)) == (1, 1, 1)
    terminal = report_text.render(cert)
    for kind in ("new: TF-92", "stale: PE-91 entry", "expired: DE-91 entry"):
        assert kind in terminal
    assert "1 new, 1 stale, 1 expired" in terminal
    markdown = report_markdown.render(cert)
    assert "**new** TF-92" in markdown and "**stale** PE-91" in markdown
    props = {p.get("name"): p.get("value")
             for p in ET.fromstring(report_junit.render(cert)).iter("property")}
    assert (props["baseline.new"], props["baseline.stale"], props["baseline.expired"]) == (
        "1", "1", "1")
    data = json.loads(report_json.render(cert))
    assert data["verdict"] == "FAILED" and len(data["baseline_summary"]["new"]) == 1
    assert data["baseline_summary"]["expired"][0]["until"] == "2001-01-01"
    jsonschema.validate(data, json.loads((ROOT / "conformance" / "core" /
                                          "certificate.schema.json").read_text("utf-8")))


# --- the samples: a drawn case's assertion and the campaign's finding ---------------------


def _failure(rule: str, check: str, what: str, case: fingerprint.Case) -> Failure:
    assertion = fingerprint.make(rule, check, what, ["a"], ["b"], error=False, case=case)
    return Failure(rule=rule, check=check, title="t", message=what, expected=["a"],
                   observed=["b"], assertion=assertion)


def _fp(failure: Failure) -> str:
    assert failure.assertion is not None
    return failure.assertion.fingerprint


def _judge(text: str, *failures: Failure) -> BaselineSummary:
    cells = {("TF-08", None): Evidence(Outcome.FAIL, "", list(failures))}
    out, summary = judge(parse_baseline(text), cells, {"TF-08": "t"}, date(2030, 1, 1))
    assert out[("TF-08", None)].outcome in (Outcome.FAIL, Outcome.EXPECTED_FAIL,
                                            Outcome.UNEXPECTED_PASS)
    return summary


def _entry(*failures: Failure) -> str:
    names = ", ".join(f'{{ fingerprint = "{_fp(f)}", check = "{f.check}", '
                      f'case = "{f.assertion.case}" }}' for f in failures if f.assertion)
    return f'[[expected-fail]]\nrule = "TF-08"\nreason = "r"\nassertions = [{names}]\n'


def test_a_drawn_assertion_of_a_check_the_entry_samples_is_excused_as_a_sample() -> None:
    fixed = _failure("TF-08", "c", "fixed case", "fixed")
    seed0 = _failure("TF-08", "c", "the error does not list […]", "drawn")
    seed3 = _failure("TF-08", "c", "installing {…}: accepted", "drawn")
    other = _failure("TF-08", "d", "another check's drawn case", "drawn")
    summary = _judge(_entry(fixed, seed0), fixed, seed3, other)
    assert [(e.assertion.what, e.sampled) for e in summary.excused] == [
        ("fixed case", False), ("installing {…}: accepted", True)]
    assert [n.assertion.check for n in summary.new] == ["d"]
    assert [u.fingerprint for u in summary.unseen] == [_fp(seed0)]
    assert not summary.stale


def test_a_named_drawn_assertion_is_stale_once_its_check_fails_nothing_of_the_rule() -> None:
    fixed = _failure("TF-08", "c", "fixed case", "fixed")
    drawn = _failure("TF-08", "d", "drawn case", "drawn")
    summary = _judge(_entry(fixed, drawn), fixed)
    assert [s.fingerprint for s in summary.stale] == [_fp(drawn)]


def test_the_campaigns_finding_is_a_sample_of_a_rule_its_entry_still_excuses() -> None:
    fixed = _failure("TF-08", "c", "fixed case", "fixed")
    seed0 = _failure("TF-08", "fuzz-campaign", "a divergence in view", "campaign")
    seed5 = _failure("TF-08", "fuzz-campaign", "a divergence in start", "campaign")
    summary = _judge(_entry(fixed, seed0), fixed, seed5)
    assert [e.sampled for e in summary.excused] == [False, True] and not summary.new
    assert [u.fingerprint for u in summary.unseen] == [_fp(seed0)]
    alone = _judge(_entry(seed0), seed5)  # nothing else of the rule is excused: new
    assert [n.assertion.what for n in alone.new] == ["a divergence in start"]


def test_a_campaign_finding_filed_under_one_rule_is_excused_by_another_it_belongs_to_failing_alike(
) -> None:
    """The campaign files its finding under the first rule its observation belongs to and
    names the others (``Failure.also``): DSH's tool refused for a provider without depthLimit
    is listed under ST-04 and met by the campaign as EN-03. An entry of a rule in ``also`` that
    excused another failure of the run and names an assertion wrong the same way (its ``way``)
    excuses it; one wrong another way, or a finding naming no such rule, stays new."""
    fixed = _failure("TF-08", "c", "fixed case", "fixed")

    def found(expected: object, observed: object, also: list[str]) -> Failure:
        assertion = fingerprint.make("TF-07", "fuzz-campaign", "a divergence in tool-load",
                                     expected, observed, error=False, case="campaign")
        return Failure(rule="TF-07", check="fuzz-campaign", title="t", message="m",
                       expected=expected, observed=observed, assertion=assertion, also=also)

    def judged(finding: Failure) -> tuple[Outcome, BaselineSummary]:
        cells = {("TF-08", None): Evidence(Outcome.FAIL, "", [fixed]),
                 ("TF-07", None): Evidence(Outcome.FAIL, "", [finding])}
        assert fixed.assertion is not None
        entry = (f'[[expected-fail]]\nrule = "TF-08"\nreason = "r"\nassertions = [{{ '
                 f'fingerprint = "{_fp(fixed)}", check = "c", case = "fixed", '
                 f'way = "{fixed.assertion.way}" }}]\n')
        out, summary = judge(parse_baseline(entry), cells, {"TF-08": "t", "TF-07": "t"},
                             date(2030, 1, 1))
        return out[("TF-07", None)].outcome, summary

    alike = found(["a"], ["b"], ["TF-08"])
    assert alike.assertion is not None and fixed.assertion is not None
    assert alike.assertion.way == fixed.assertion.way
    outcome, summary = judged(alike)
    assert outcome is Outcome.EXPECTED_FAIL and not summary.new
    assert [(e.rule, e.sampled) for e in summary.excused] == [("TF-08", False), ("TF-07", True)]
    otherwise = found("INVALID_TOOL_FILTER", "accepted", ["TF-08"])
    assert otherwise.assertion is not None and otherwise.assertion.way != fixed.assertion.way
    for finding in (otherwise, found(["a"], ["b"], [])):
        outcome, summary = judged(finding)
        assert outcome is Outcome.FAIL
        assert [n.rule for n in summary.new] == ["TF-07"]
