"""``certify --promises FILE``: the promises join the certificate as their own items, and the
JSON, JUnit, Markdown, text and exit code agree (docs/certify.md, docs/promises.md).

The rule selection is a partial run of CA-01 (one rule the roster's deployment passes): the
point is the promises' part of the verdict, not the rules'."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from target_wrappers import Wrapped

from examples.roster import broken
from subagent_tck.conformance.cli import main
from subagent_tck.conformance.core import promises_file as pf
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.engine.promises import check_all
from subagent_tck.spec import ErrorCode, TckError

ROOT = Path(__file__).resolve().parents[2]
FILE = str(ROOT / "examples" / "roster" / "promises.toml")
SCHEMA = json.loads((ROOT / "conformance" / "core" / "certificate.schema.json").read_text("utf-8"))
ROSTER = "python:examples.roster.target:make_target"


def _certify(tmp_path: Path, target: str, capsys: pytest.CaptureFixture[str],
             file: str = FILE) -> tuple[int, dict, ET.Element, str, str]:
    paths = {f: tmp_path / f"report.{f}" for f in ("json", "junit", "markdown")}
    code = main(["certify", "--target", target, "--rule", "CA-01", "--seed", "3",
                 "--promises", file, *(a for f, p in paths.items()
                                        for a in ("--report", f"{f}={p}"))])
    text = capsys.readouterr().out
    return (code, json.loads(paths["json"].read_text("utf-8")),
            ET.parse(paths["junit"]).getroot(), paths["markdown"].read_text("utf-8"), text)


def _promise_suite(junit: ET.Element) -> ET.Element:
    return next(s for s in junit if s.get("name", "").startswith("subagent-tck promises"))


def test_kept_promises_join_a_passing_certificate_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, cert, junit, markdown, text = _certify(tmp_path, ROSTER, capsys)
    assert code == 0 and cert["verdict"] == "PASSED"
    jsonschema.validate(cert, SCHEMA)
    items = cert["promises"]["items"]
    assert len(items) == 70 and {i["status"] for i in items} == {"kept"}
    suite = _promise_suite(junit)
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("70", "0", "0")
    assert junit.get("tests") == str(70 + len(cert["rules"])) and junit.get("failures") == "0"
    assert "✅ Promises" in markdown
    assert "promises (" in text and "all kept: 12 promise(s), 70 item(s)" in text
    assert f"--promises {FILE}" in text  # the run's replay names the file


@pytest.mark.parametrize("variant", sorted(broken.VARIANTS))
def test_a_broken_promise_fails_the_certificate_naming_the_role_in_every_format(
    variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    role, aspects = broken.VARIANTS[variant]
    code, cert, junit, markdown, text = _certify(
        tmp_path, f"python:examples.roster.broken:{variant}", capsys)
    assert code == 1 and cert["verdict"] == "FAILED"
    jsonschema.validate(cert, SCHEMA)
    wanted = {f"{role}/{aspect}" for aspect in aspects}
    assert {f"{i['promise']}/{i['aspect']}" for i in cert["promises"]["items"]
            if i["status"] == "broken"} == wanted
    suite = _promise_suite(junit)
    failed = {c.get("classname").removeprefix("promises.") + "/" + c.get("name")
              for c in suite if c.find("failure") is not None}
    assert failed == wanted and int(junit.get("failures")) >= len(wanted)
    assert "❌ Promises" in markdown and all(w in markdown for w in wanted)
    assert all(f"BROKEN {w}:" in text for w in wanted)
    assert "a promise was not kept" in text and "verdict: FAILED (exit 1)" in text


def test_a_bad_promises_file_is_a_usage_error_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "p.toml"
    bad.write_text(Path(FILE).read_text("utf-8").replace("never", "nevr", 1), "utf-8")
    report = tmp_path / "c.json"
    code = main(["certify", "--target", ROSTER, "--promises", str(bad),
                 "--report", f"json={report}"])
    err = capsys.readouterr().err
    assert code == 2 and f"{bad}:" in err and "unknown key" in err
    assert json.loads(report.read_text("utf-8"))["verdict"] == "ERROR"


class _BreaksOnDeploy(Wrapped):
    """A target whose connection breaks at the second deployment."""

    def __init__(self) -> None:
        from examples.roster.target import make_target

        super().__init__(make_target())
        self.count = 0

    def deploy(self, config: DeploymentConfig, gateway):  # type: ignore[no-untyped-def]
        self.count += 1
        if self.count == 2:
            raise TckError(ErrorCode.TARGET_UNREACHABLE, "connection reset")
        return super().deploy(config, gateway)


def test_a_target_that_breaks_mid_run_leaves_that_promise_an_error_and_checks_the_rest() -> None:
    file = pf.load(FILE)
    report = check_all(_BreaksOnDeploy(), file, keep_going=True)  # type: ignore[arg-type]
    second = [i for i in report.items if i.promise == file.promise[1].id]
    assert [(i.aspect, i.status) for i in second] == [("trigger", "error")]
    assert "TARGET_UNREACHABLE" in second[0].message and not report.kept
    assert {i.promise for i in report.items} == {p.id for p in file.promise}
    with pytest.raises(TckError):  # the promises command: a broken target ends the command
        check_all(_BreaksOnDeploy(), file)  # type: ignore[arg-type]


def test_promises_past_the_deadline_are_errors_never_passes() -> None:
    file = pf.load(FILE)
    from examples.roster.target import make_target

    report = check_all(make_target(), file, keep_going=True, deadline=0.0)
    assert {(i.aspect, i.status) for i in report.items} == {("trigger", "error")}
    assert "deadline" in report.items[0].message


def test_target_text_in_a_promise_reaches_no_certificate_format_raw() -> None:
    from examples.roster.roster import Roster
    from examples.roster.target import RosterTarget
    from subagent_tck.conformance.engine.runner import RunConfig, certify
    from subagent_tck.conformance.report import report_junit, report_markdown, report_text
    from tests.promises.test_promises_reports import _EscapingDelegate

    target = RosterTarget(lambda: _EscapingDelegate(Roster(), "strict"))
    cert = certify(target, RunConfig(target_spec="hostile", rules=("CA-01",), seed=3,
                                     promises=pf.load(FILE), promises_path=FILE))
    assert cert.promises is not None and not cert.promises.kept and not cert.succeeded
    text, markdown = report_text.render(cert), report_markdown.render(cert)
    junit = report_junit.render(cert)
    for shown in (text, markdown, junit):
        assert "\x1b" not in shown
    assert "BROKEN planner/persona" in text
    fenced, outside = False, []  # the target's text is only ever inside a code fence
    for line in markdown.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            outside.append(line)
    assert "pwned" in markdown and not any("pwned" in line for line in outside)
    ET.fromstring(junit.split("\n", 1)[1])  # well-formed XML
