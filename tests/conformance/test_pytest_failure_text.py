"""A failing pytest item shows its failure as the text summary does (expected, observed,
cause, replay), and the plugin's JUnit names are the CLI's (docs/certify.md#the-pytest-plugin)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from subagent_tck.conformance.core.outcome import Failure
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.report import report_junit
from subagent_tck.conformance.report.report_failure import failure_lines, traceback_lines

pytest_plugins = ["pytester"]

FAKE = "python:subagent_tck_test_fakes:broken_filter"


def test_one_failure_renders_with_everything_that_explains_it() -> None:
    failure = Failure(rule="FR-01", check="first-request", title="FR-01 x", message="no request",
                      expected=1, observed=0, provider="mine",
                      cause="provider mine raised RuntimeError: db locked",
                      traceback="Traceback (most recent call last):\n  boom\nRuntimeError: db",
                      replay="subagent-tck certify --rule FR-01")
    lines = failure_lines(failure)
    assert lines == ["  [mine] no request", "    expected: 1", "    observed: 0",
                     "    cause:    provider mine raised RuntimeError: db locked",
                     "    replay this failure: subagent-tck certify --rule FR-01"]
    assert traceback_lines(failure)[-1] == "    RuntimeError: db"


def test_a_failing_item_shows_expected_and_observed(pytester: pytest.Pytester,
                                                    fakes: ModuleType) -> None:
    result = pytester.runpytest(f"--subagent-tck-target={FAKE}", "-q")
    result.stdout.fnmatch_lines(["*[[]spawn[]] TF-92 broken*", '*expected: a*',
                                 '*observed: b*'])


def test_the_plugin_and_the_cli_name_junit_testcases_alike(
    pytester: pytest.Pytester, fakes: ModuleType, tmp_path: Path,
) -> None:
    xml = tmp_path / "pytest.xml"
    pytester.runpytest(f"--subagent-tck-target={FAKE}", f"--junitxml={xml}", "-q")
    from_pytest = {(c.get("classname"), c.get("name"))
                   for c in ET.parse(xml).getroot().iter("testcase")}
    cert = certify(fakes.FakeTarget({("TF-92", "spawn"): "break"}), RunConfig())
    from_cli = {(c.get("classname"), c.get("name"))
                for c in ET.fromstring(report_junit.render(cert)).iter("testcase")}
    assert from_pytest == from_cli
