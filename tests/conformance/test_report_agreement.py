"""Exit code, JUnit, JSON, Markdown and terminal agree; errors are classified by who failed;
partial runs, baselines and interrupts never show green on red (docs/certify.md#outputs)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from lxml import etree

from subagent_tck.conformance.core.baseline import parse_baseline
from subagent_tck.conformance.core.certificate import Certificate, Verdict
from subagent_tck.conformance.core.exitcode import ExitCode, for_certificate
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.runner import CheckStarted, Event, RunConfig, certify
from subagent_tck.conformance.report import report_json, report_junit, report_markdown, report_text

XSD = etree.XMLSchema(etree.parse(str(Path(__file__).parents[1] / "reports" / "junit-10.xsd")))
SCHEMA = json.loads((Path(__file__).parents[2] / "conformance" / "core" / "certificate.schema.json")
                    .read_text(encoding="utf-8"))


def run(fakes: ModuleType, behaviour: dict[tuple[str, str | None], str] | None = None,
        **kwargs: Any) -> Certificate:
    return certify(fakes.FakeTarget(behaviour), RunConfig(target_spec="python:m:f", **kwargs))


def junit_counts(cert: Certificate) -> tuple[int, int]:
    text = report_junit.render(cert)
    assert XSD.validate(etree.fromstring(text.encode())), XSD.error_log
    root = ET.fromstring(text)
    return int(root.get("failures", "-1")), int(root.get("errors", "-1"))


BEHAVIOURS: dict[str, dict[tuple[str, str | None], str]] = {
    "clean": {},
    "a MUST rule that never ran": {("TF-91", "spawn"): "silent"},
    "a failing MUST rule": {("TF-92", "spawn"): "break"},
    "a protocol error": {("CA-91", "acp"): "protocol"},
    "a failing SHOULD rule": {("TF-93", "spawn"): "break"},
    "a crash": {("DE-91", "spawn"): "crash"},
}


@pytest.mark.parametrize("name", list(BEHAVIOURS))
def test_the_junit_file_is_red_exactly_when_the_exit_code_is(fakes: ModuleType,
                                                             name: str) -> None:
    cert = run(fakes, BEHAVIOURS[name])
    failures, errors = junit_counts(cert)
    code = for_certificate(cert)
    assert (code == ExitCode.CERTIFIED) == (failures + errors == 0), (name, code, failures)
    assert (code == ExitCode.CERTIFIED) == cert.succeeded
    markdown = report_markdown.render(cert)
    assert markdown.startswith("## ✅" if code == ExitCode.CERTIFIED else "## ❌")
    assert f"(exit {int(code)})" in report_text.render(cert)
    assert json.loads(report_json.render(cert))["verdict"] == cert.verdict.value


def test_a_blocking_rule_that_did_not_run_is_a_junit_failure(fakes: ModuleType) -> None:
    cert = run(fakes, {("TF-91", "spawn"): "silent"})
    assert cert.rule("TF-91").outcome == Outcome.NOT_RUN and for_certificate(cert) == 1
    case = next(c for c in ET.fromstring(report_junit.render(cert)).iter("testcase")
                if c.get("name") == "TF-91")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "not-run"
    assert case.find("skipped") is None


def test_a_failing_should_rule_is_reported_but_not_red(fakes: ModuleType) -> None:
    cert = run(fakes, {("TF-93", "spawn"): "break"})
    assert for_certificate(cert) == ExitCode.CERTIFIED
    case = next(c for c in ET.fromstring(report_junit.render(cert)).iter("testcase")
                if c.get("name") == "TF-93")
    skipped = case.find("skipped")
    assert skipped is not None and "SHOULD" in skipped.get("message", "")
    assert "TF-93 broken" in (skipped.text or "")


def test_testcase_times_add_up_to_the_time_the_checks_took(fakes: ModuleType) -> None:
    cert = run(fakes)
    root = ET.fromstring(report_junit.render(cert))
    total = sum(float(c.get("time", "0")) for c in root.iter("testcase"))
    checks = sum(run.duration for run in cert.checks)
    assert total == pytest.approx(checks, abs=0.001 * len(cert.rules))
    assert total <= cert.duration + 0.001 * len(cert.rules)


def test_junit_names_are_the_pytest_plugins_names() -> None:
    classname, name = report_junit.testcase_name("TF-07")
    nodeid = report_junit.pytest_nodeid("TF-07")
    # pytest's junitxml: classname from the node id's path, name its last part
    path, _, last = nodeid.rpartition("::")
    assert (path.replace("/", "."), last) == (classname, name) == ("subagent-tck", "TF-07")


def test_a_partial_run_never_certifies_a_capability_none_of_whose_rules_ran(
    fakes: ModuleType,
) -> None:
    cert = run(fakes, rules=("TF-91",))
    verdicts = {(v.provider, v.capability.value if v.capability else None): v.verdict
                for v in cert.verdicts}
    assert verdicts["spawn", "toolFilter"] == Verdict.PASSED
    assert verdicts["spawn", "persona"] == Verdict.NOT_RUN
    assert verdicts["spawn", None] == Verdict.NOT_RUN
    assert Verdict.CERTIFIED not in verdicts.values()
    assert cert.verdict == Verdict.PASSED and for_certificate(cert) == ExitCode.CERTIFIED
    text = report_text.render(cert)
    assert "CERTIFIED" not in text and "persona        NOT-RUN" in text


def test_a_partial_run_of_rules_that_apply_nowhere_passes_nothing(fakes: ModuleType) -> None:
    cert = run(fakes, rules=("EN-92",))  # another edition's rule: not applicable
    assert cert.verdict == Verdict.NOT_RUN and for_certificate(cert) == ExitCode.FAILED
    assert "nothing was judged" in report_text.render(cert)


def test_a_baseline_entry_for_a_rule_that_did_not_run_is_named_and_stays_failing(
    fakes: ModuleType,
) -> None:
    baseline = parse_baseline('[[expected-fail]]\nrule = "TF-91"\nreason = "later"\n'
                              'scope = "rule"\n', "tck-baseline.toml")
    cert = run(fakes, {("TF-91", "spawn"): "silent"}, baseline=baseline)
    result = cert.rule("TF-91")
    assert result.outcome == Outcome.NOT_RUN and for_certificate(cert) == ExitCode.FAILED
    assert "baseline tck-baseline.toml entry 1 (line 1) lists it as expected to fail, but it " \
        "did not run" in result.reasons()
    assert junit_counts(cert)[0] == 1
    assert "entry 1 (line 1)" in report_text.render(cert)


@pytest.mark.parametrize("behaviour", ["reset-step", "reset-refusal"])
def test_a_transport_failure_mid_run_is_an_error_of_the_target_not_a_failed_rule(
    fakes: ModuleType, behaviour: str,
) -> None:
    cert = run(fakes, {("TF-92", "spawn"): behaviour})
    result = cert.rule("TF-92")
    assert result.outcome == Outcome.ERROR
    assert all(f.error for f in result.failures)
    assert "not a verdict" in result.failures[0].message
    assert for_certificate(cert) == ExitCode.TARGET_BROKEN
    failures, errors = junit_counts(cert)
    assert (failures, errors) == (0, 1)


def test_the_expired_deadline_says_so_in_every_output(fakes: ModuleType) -> None:
    cert = run(fakes, {("TF-91", "spawn"): "hang"}, deadline=0.3)
    assert cert.stopped_early is not None and "deadline of 0.3 s" in cert.stopped_early
    text = report_text.render(cert)
    assert "stopped early: the run's deadline of 0.3 s (--deadline) expired" in text
    assert "verdict: FAILED (exit 3): the run's deadline of 0.3 s" in text
    assert "broke" not in text.split("verdict:")[-1]
    assert "Stopped early" in report_markdown.render(cert)
    props = {p.get("name"): p.get("value")
             for p in ET.fromstring(report_junit.render(cert)).iter("property")}
    assert "deadline of 0.3 s" in props["stopped_early"]


class _StopAt:
    """A handler that presses Ctrl-C when check ``index`` starts."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __call__(self, event: Event) -> None:
        if isinstance(event, CheckStarted) and event.index == self.index:
            raise KeyboardInterrupt


def test_an_interrupted_run_is_a_valid_certificate_marked_interrupted(fakes: ModuleType) -> None:
    import jsonschema

    cert = certify(fakes.FakeTarget(), RunConfig(target_spec="python:m:f"),
                   handlers=[_StopAt(2)])
    assert cert.interrupted and len(cert.checks) == 2
    assert cert.stopped_early is not None and "after 2 of" in cert.stopped_early
    assert for_certificate(cert) == ExitCode.INTERRUPTED == 130
    assert cert.verdict == Verdict.FAILED
    left = [r for r in cert.rules if r.outcome == Outcome.NOT_RUN]
    assert left and all("interrupted" in r.reasons() for r in left)
    document = json.loads(report_json.render(cert))
    jsonschema.validate(document, SCHEMA)
    assert document["interrupted"] is True
    assert junit_counts(cert)[0] >= 1
