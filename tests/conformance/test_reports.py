"""The reports: text summary and progress, JSON, JUnit XML and Markdown."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from types import ModuleType

import pytest
from rich.console import Console

from subagent_tck.conformance.core.baseline import parse_baseline
from subagent_tck.conformance.core.certificate import Certificate
from subagent_tck.conformance.core.outcome import Failure
from subagent_tck.conformance.engine.runner import RunConfig, RunFinished, certify
from subagent_tck.conformance.report import report_json, report_junit, report_markdown, report_text
from subagent_tck.conformance.report.report_stream import StreamReporter

MIXED = {("TF-92", "spawn"): "break", ("CA-91", "acp"): "protocol", ("DE-91", "acp"): "skip"}


@pytest.fixture
def mixed(fakes: ModuleType) -> Certificate:
    """Failing TF-92 (fail), CA-91 (error), PE-91 (expected-fail), EN-92 (not-applicable)."""
    behaviour = {**MIXED, ("PE-91", "spawn"): "break"}
    baseline = parse_baseline('[[expected-fail]]\nrule = "PE-91"\nreason = "persona later"\n'
                              'scope = "rule"\n')
    return certify(fakes.FakeTarget(behaviour),
                   RunConfig(target_spec="python:m:f", baseline=baseline))


def test_the_text_summary_has_verdict_tables_and_each_failure_with_its_replay(
    mixed: Certificate,
) -> None:
    text = report_text.render(mixed)
    assert "\x1b[" not in text  # plain: readable in a CI log
    assert "provider spawn (advertises depthLimit persona toolFilter outputSchema)" in text
    assert "provider acp (advertises no controls)" in text
    assert "toolFilter     FAILED      TF-92 fail" in text
    for needle in ("TF-92 fake-92  [fail] MUST  (spawn)", "[spawn] TF-92 broken",
                   "expected: a", "observed: b", "example:  state-1",
                   "replay: subagent-tck certify --target python:m:f --rule TF-92 --seed 0",
                   "CA-91 fake-91  [error]", "garbage answer on CA-91",
                   "expected-fail (baseline): PE-91 (spawn: persona later)",
                   "verdict: FAILED (exit 1)"):
        assert needle in text, needle


def test_a_long_baseline_reason_is_cut_short_on_the_terminal_and_whole_in_the_reports(
        fakes: ModuleType) -> None:
    reason = "what the target does, " * 30 + "and the replay line"
    baseline = parse_baseline('[[expected-fail]]\nrule = "PE-91"\n'
                              f'reason = "{reason}"\nscope = "rule"\n')
    cert = certify(fakes.FakeTarget({("PE-91", "spawn"): "break"}),
                   RunConfig(target_spec="python:m:f", baseline=baseline))
    line = next(x for x in report_text.render(cert).splitlines()
                if x.startswith("expected-fail (baseline)"))
    assert line.endswith("...)") and "and the replay line" not in line, line
    assert len(line) <= len("expected-fail (baseline): PE-91 (spawn: )") + \
        report_text.REASON_SHOWN
    assert reason in report_markdown.render(cert) and reason in report_json.render(cert)


def test_the_text_summary_of_a_partial_run_says_it_never_certifies(fakes: ModuleType) -> None:
    cert = certify(fakes.FakeTarget(), RunConfig(rules=("TF-91",)))
    assert "partial run: --rule TF-91" in report_text.render(cert)


def test_the_text_reporter_prints_on_run_finished_only(fakes: ModuleType) -> None:
    out = io.StringIO()
    reporter = report_text.TextReporter(Console(file=out, width=100, color_system=None))
    certify(fakes.FakeTarget(), RunConfig(), handlers=[reporter])
    assert out.getvalue().count("verdict: CERTIFIED (exit 0)") == 1


def test_the_progress_bar_follows_the_run_on_a_terminal(fakes: ModuleType) -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80)
    progress = report_text.ProgressReporter(console)
    certify(fakes.FakeTarget(), RunConfig(), handlers=[progress])
    assert progress._progress is None  # stopped at the end of the run
    assert "certify" in out.getvalue()


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_is_off_outside_a_terminal_and_in_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert report_text.progress_wanted(_Tty())
    assert not report_text.progress_wanted(io.StringIO())
    monkeypatch.setenv("CI", "true")
    assert not report_text.progress_wanted(_Tty())


def test_json_is_the_certificate(mixed: Certificate) -> None:
    assert Certificate.model_validate_json(report_json.render(mixed)) == mixed
    out = io.StringIO()
    StreamReporter(report_json.render, out)(RunFinished(mixed))
    assert json.loads(out.getvalue())["verdict"] == "FAILED"


def test_junit_has_one_testcase_per_rule_with_outcomes_mapped(mixed: Certificate) -> None:
    root = ET.fromstring(report_junit.render(mixed))
    suite = root.find("testsuite")
    assert suite is not None
    cases = {c.get("name", "").split()[0]: c for c in suite.iter("testcase")}
    assert list(cases) == [r.id for r in mixed.rules]
    assert {c.get("classname") for c in cases.values()} == {"subagent-tck"}
    failure = cases["TF-92"].find("failure")
    assert failure is not None and failure.get("message") == "TF-92 fake-92: fail: TF-92 broken"
    assert 'expected: "a"' in (failure.text or "") and 'observed: "b"' in (failure.text or "")
    assert "replay: subagent-tck certify" in (failure.text or "")
    error = cases["CA-91"].find("error")
    assert error is not None and "garbage answer" in (error.get("message") or "")
    skipped = cases["EN-92"].find("skipped")
    assert skipped is not None and "edition request-controls only" in skipped.get("message", "")
    expected = cases["PE-91"].find("skipped")
    assert expected is not None and "expected-fail: spawn: persona later" in expected.get(
        "message", "")
    assert len(list(cases["TF-91"])) == 0  # a pass is an empty testcase
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"),
            suite.get("skipped")) == (str(len(mixed.rules)), "1", "1", "2")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["verdict.spawn.toolFilter"] == "FAILED" and props["seed"] == "0"


def test_junit_of_a_clean_run_has_no_failures(fakes: ModuleType) -> None:
    root = ET.fromstring(report_junit.render(certify(fakes.FakeTarget(), RunConfig())))
    assert root.get("failures") == "0" and root.get("errors") == "0"


def test_markdown_has_a_summary_table_and_failures_folded(mixed: Certificate) -> None:
    text = report_markdown.render(mixed)
    assert text.startswith("## ❌ subagent-tck: FAILED python:m:f")
    assert "| spawn | toolFilter | ❌ FAILED | TF-92 fail |" in text
    assert "| spawn | depthLimit | ✅ CERTIFIED |  |" in text
    # TF-92, CA-91, and the baseline's excused assertions
    assert text.count("<details>") == text.count("</details>") == 3
    assert "<details><summary>1 excused assertion(s)</summary>" in text
    assert "- PE-91 [spawn] `" in text and "fake-persona \\[fixed\\]: PE-# broken" in text
    assert "<summary><b>TF-92 fake-92</b> (MUST, fail: spawn)</summary>" in text
    assert "```\nsubagent-tck certify --target python:m:f --rule TF-92 --seed 0\n```" in text
    assert "### Expected failures (baseline)\n\n- PE-91 fake-91: spawn: persona later" in text


def test_markdown_of_a_clean_run_says_certified(fakes: ModuleType) -> None:
    text = report_markdown.render(certify(fakes.FakeTarget(), RunConfig()))
    assert text.startswith("## ✅ subagent-tck: CERTIFIED") and "<details>" not in text


def test_a_multi_line_value_stays_on_one_log_line(fakes: ModuleType) -> None:
    from subagent_tck.conformance.engine.check import Check, CheckContext
    from subagent_tck.conformance.engine.runner import Suite

    def prose(ctx: CheckContext) -> None:
        ctx.expect("CA-91", False, "prompt differs", "persona\nrules", "other\nrules")

    suite = Suite(fakes.RULES, {"prose": Check("prose", ("CA-91",), prose)})
    text = report_text.render(certify(fakes.FakeTarget(), RunConfig(), suite=suite))
    assert '    expected: "persona\\nrules"' in text and '    observed: "other\\nrules"' in text


def _failure(check: str, n: int) -> Failure:
    return Failure(rule="TF-92", check=check, title="TF-92 fake-92", message=f"{check} #{n}")


def test_the_text_summary_shows_each_checks_first_failure_before_any_checks_second() -> None:
    many = [_failure("tool-filter", n) for n in range(4)] + [_failure("fuzz-campaign", 0)]
    shown = report_text.shown_failures(many, limit=3)
    # the campaign's finding (its shrunk steps, its replay file) is never hidden behind the
    # fourth failure of another check; the order stays the certificate's
    assert [f.message for f in shown] == ["tool-filter #0", "tool-filter #1", "fuzz-campaign #0"]
    assert report_text.shown_failures(many[:2], limit=3) == many[:2]


def test_a_rule_with_more_failures_than_shown_names_how_many_are_left_out(
    mixed: Certificate,
) -> None:
    many = [_failure("tool-filter", n) for n in range(4)] + [_failure("fuzz-campaign", 0)]
    rules = [r.model_copy(update={"failures": many}) if r.id == "TF-92" else r
             for r in mixed.rules]
    text = report_text.render(mixed.model_copy(update={"rules": rules}))
    assert "fuzz-campaign #0" in text and "tool-filter #2" not in text
    assert "… 2 more failure(s): see the JSON certificate" in text
