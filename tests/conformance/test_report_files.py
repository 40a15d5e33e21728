"""Report files: several per run, each written atomically; a run that ends early replaces the
old report with one that says why; Ctrl-C leaves a report marked interrupted and exits 130
(docs/certify.md#outputs)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest

from subagent_tck.conformance.cli import main
from subagent_tck.conformance.report import report_files
from subagent_tck.spec import TckError

HEALTHY = "python:subagent_tck_test_fakes:healthy"
BROKEN = "python:subagent_tck_test_fakes:broken_filter"
UNREACHABLE = "python:subagent_tck_test_fakes:unreachable"
STALE_PASS = '{"verdict": "CERTIFIED", "stale": true}\n'
SCHEMA = json.loads((Path(__file__).parents[2] / "conformance" / "core" / "certificate.schema.json")
                    .read_text("utf-8"))


def valid_report(path: Path) -> dict[str, object]:
    """The JSON report at ``path``, which must validate against the committed schema."""
    document: dict[str, object] = json.loads(path.read_text("utf-8"))
    jsonschema.validate(document, SCHEMA)
    return document


def _reports(tmp_path: Path) -> dict[str, Path]:
    return {fmt: tmp_path / f"tck.{fmt}" for fmt in report_files.FORMATS}


def _argv(target: str, reports: dict[str, Path], *more: str) -> list[str]:
    argv = ["certify", "--target", target, *more]
    for fmt, path in reports.items():
        argv += ["--report", f"{fmt}={path}"]
    return argv


def test_several_reports_from_one_run_agree(fakes: ModuleType, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    reports = _reports(tmp_path)
    assert main(_argv(BROKEN, reports)) == 1
    cert = json.loads(reports["json"].read_text("utf-8"))
    assert cert["verdict"] == "FAILED"
    junit = ET.parse(reports["junit"]).getroot()
    assert junit.get("failures") == "1"
    assert reports["markdown"].read_text("utf-8").startswith("## ❌ subagent-tck: FAILED")
    assert "verdict: FAILED (exit 1)" in reports["text"].read_text("utf-8")
    assert "verdict: FAILED (exit 1)" in capsys.readouterr().out  # the summary still shows
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in
                                                               reports.values())


@pytest.mark.parametrize(("target", "more", "exit_code", "verdict"), [
    (HEALTHY, (), 0, "CERTIFIED"),
    (BROKEN, (), 1, "FAILED"),
    (HEALTHY, ("--rule", "ZZ-99"), 2, "ERROR"),
    (UNREACHABLE, (), 3, "ERROR"),
])
def test_every_report_validates_and_agrees_whatever_the_exit_code(
    fakes: ModuleType, tmp_path: Path, target: str, more: tuple[str, ...], exit_code: int,
    verdict: str,
) -> None:
    reports = _reports(tmp_path)
    assert main(_argv(target, reports, *more)) == exit_code
    document = valid_report(reports["json"])
    assert document["verdict"] == verdict and document["catalogue_hash"]
    assert document.get("exit_code", exit_code) == exit_code
    junit = ET.parse(reports["junit"]).getroot()
    bad = int(junit.get("failures", "0")) + int(junit.get("errors", "0"))
    assert (bad == 0) == (exit_code == 0)
    markdown = reports["markdown"].read_text("utf-8")
    assert (verdict if verdict != "ERROR" else "before any check ran") in markdown or \
        "ERROR" in markdown


def test_format_and_output_still_work_beside_report(fakes: ModuleType, tmp_path: Path) -> None:
    output, extra = tmp_path / "tck.xml", tmp_path / "cert.json"
    assert main(["certify", "--target", HEALTHY, "--format", "junit", "--output", str(output),
                 "--report", f"json={extra}"]) == 0
    assert ET.parse(output).getroot().get("failures") == "0"
    assert json.loads(extra.read_text("utf-8"))["verdict"] == "CERTIFIED"


def test_an_unreachable_target_replaces_yesterdays_passing_reports(
    fakes: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    reports = _reports(tmp_path)
    for path in reports.values():
        path.write_text(STALE_PASS, encoding="utf-8")
    assert main(_argv(UNREACHABLE, reports)) == 3
    document = json.loads(reports["json"].read_text("utf-8"))
    assert document["verdict"] == "ERROR" and document["exit_code"] == 3
    assert document["error"]["code"] == "TARGET_UNREACHABLE"
    junit = ET.parse(reports["junit"]).getroot()
    assert junit.get("errors") == "1"
    assert "TARGET\\_UNREACHABLE" in reports["markdown"].read_text("utf-8")
    assert "before any check ran" in reports["text"].read_text("utf-8")
    assert "error:" in capsys.readouterr().err


def test_a_usage_error_after_the_reports_were_named_replaces_them_too(
    fakes: ModuleType, tmp_path: Path,
) -> None:
    reports = _reports(tmp_path)
    for path in reports.values():
        path.write_text(STALE_PASS, encoding="utf-8")
    assert main(_argv(HEALTHY, reports, "--rule", "ZZ-99")) == 2
    for path in reports.values():
        text = path.read_text("utf-8")
        assert text and "stale" not in text
    assert json.loads(reports["json"].read_text("utf-8"))["error"]["code"] == "USAGE"


def test_an_unwritable_report_is_a_usage_error_before_anything_runs(
    fakes: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    missing = tmp_path / "no-such-dir" / "tck.xml"
    assert main(["certify", "--target", HEALTHY, "--report", f"junit={missing}"]) == 2
    err = capsys.readouterr().err
    assert "does not exist or is not writable" in err and "verdict" not in err


@pytest.mark.parametrize(("value", "message"), [
    ("tck.xml", "write FORMAT=FILE"),
    ("xml=tck.xml", "unknown format 'xml'"),
    ("junit=", "write FORMAT=FILE"),
])
def test_a_malformed_report_option_names_the_fix(value: str, message: str) -> None:
    with pytest.raises(TckError, match=message):
        report_files.parse_report(value)


def test_two_reports_to_one_file_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    with pytest.raises(TckError, match="both go to one file"):
        report_files.check_writable([report_files.ReportFile("json", path),
                                     report_files.ReportFile("text", path)])


def test_a_write_that_fails_leaves_the_old_report_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "cert.json"
    path.write_text(STALE_PASS, encoding="utf-8")

    def full_disk(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError):
        report_files.write_atomic(path, "{}")
    assert path.read_text("utf-8") == STALE_PASS
    assert [p.name for p in tmp_path.iterdir()] == ["cert.json"]


def test_an_atomic_write_replaces_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "cert.json"
    path.write_text(STALE_PASS, encoding="utf-8")
    report_files.write_atomic(path, "new \udc80 text\n")
    assert path.read_bytes() == b"new \\udc80 text\n"  # never a crash on what UTF-8 lacks
    assert [p.name for p in tmp_path.iterdir()] == ["cert.json"]


SLOW_TARGET = """
import threading
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.reference import InProcessProvider
from subagent_tck.spec import CONTROLS

class Stuck(InProcessProvider):
    def run(self, host, child, prompt, signal):
        open("stuck-started", "w").close()  # tells the test the run is halfway
        threading.Event().wait(60)
        raise RuntimeError("released")

def factory():
    return reference_target(extra_providers=[Stuck("stuck", CONTROLS)])
"""


def test_ctrl_c_writes_a_report_marked_interrupted_and_exits_130(tmp_path: Path) -> None:
    (tmp_path / "slow_target.py").write_text(textwrap.dedent(SLOW_TARGET), encoding="utf-8")
    report = tmp_path / "cert.json"
    report.write_text(STALE_PASS, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "CI": "true"}
    process = subprocess.Popen(
        [sys.executable, "-m", "subagent_tck.conformance.cli", "certify", "--target",
         "python:slow_target:factory", "--rule", "FR-01", "--report", f"json={report}"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # SIGINT at its default, as a shell starts the kit (tests/http/http_helpers.py)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        started = time.monotonic()
        while not (tmp_path / "stuck-started").exists() and time.monotonic() - started < 60:
            time.sleep(0.05)  # until the run is inside the stuck provider's check
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=90)  # generous: CI runs it beside runtimes
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted: ") and "Traceback" not in err
    assert "check run(s) finished" in lines[0] and "marked interrupted" in lines[0]
    document = valid_report(report)
    assert document["interrupted"] is True and document["verdict"] == "FAILED"
    assert "interrupted (Ctrl-C)" in document["stopped_early"]


def test_the_ci_example_writes_every_report_from_one_run_without_inline_python() -> None:
    import re

    workflow = (Path(__file__).parents[2] / "examples" / "ci" / "github-actions.yml").read_text(
        encoding="utf-8")
    reports = [report_files.parse_report(v) for v in re.findall(r"--report (\S+)", workflow)]
    assert sorted(r.format for r in reports) == ["json", "junit", "markdown"]
    assert workflow.count("subagent-tck certify") == 1
    assert "<<'PY'" not in workflow and "render(" not in workflow
    for report in reports:  # every file the run writes is the one uploaded
        assert str(report.path) in workflow.split("Upload reports")[1]


def test_a_command_line_argparse_refuses_still_replaces_the_named_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    json_report, junit_report = tmp_path / "cert.json", tmp_path / "tck.xml"
    for path in (json_report, junit_report):
        path.write_text(STALE_PASS, encoding="utf-8")
    code = main(["certify", "--target", HEALTHY, "--report", f"json={json_report}",
                 "--format", "junit", "--output", str(junit_report), "--profile", "nosuch"])
    assert code == 2 and "invalid choice" in capsys.readouterr().err
    document = json.loads(json_report.read_text("utf-8"))
    assert document["error"]["code"] == "USAGE" and "nosuch" in document["error"]["message"]
    assert ET.parse(junit_report).getroot().get("errors") == "1"
