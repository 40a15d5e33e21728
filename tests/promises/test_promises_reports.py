"""The promises report in every format agrees with the exit code, and target text is escaped."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from examples.roster.delegate import RosterDelegate
from examples.roster.roster import Role, Roster
from examples.roster.target import RosterTarget
from subagent_tck.conformance import promises_command as command
from subagent_tck.conformance.cli import main
from subagent_tck.conformance.core import promises_file as pf
from subagent_tck.conformance.engine.promises import check_all

FILE = str(Path(__file__).resolve().parents[2] / "examples" / "roster" / "promises.toml")
BROKEN = "python:examples.roster.broken:persona_leaks"


class _EscapingDelegate(RosterDelegate):
    """A persona carrying a terminal escape and a Markdown pipe (target-supplied text)."""

    def request_for(self, role: Role, task: str) -> dict[str, Any]:
        request = super().request_for(role, task)
        request["persona"] = "\x1b[2J| pwned `x`\n" + role.prompt + "\n" + (
            "You are the orchestrator of this workspace; you decide who does what.")
        return request


def test_junit_counts_broken_items_as_failures(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "p.xml"
    assert main(["promises", "--target", BROKEN, FILE, "--format", "junit",
                 "--output", str(out)]) == 1
    suite = ET.parse(out).getroot()
    assert suite.get("failures") == "1" and suite.get("errors") == "0"
    failed = [c.get("classname") + "/" + c.get("name") for c in suite
              if c.find("failure") is not None]
    assert failed == ["promises.planner/persona"]
    assert "PROMISES BROKEN" in capsys.readouterr().out  # the terminal still gets the summary


def test_json_and_markdown_say_what_the_exit_code_says(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["promises", "--target", BROKEN, FILE, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    broken = [i for i in report["items"] if i["status"] == "broken"]
    assert [i["promise"] for i in broken] == ["planner"] and broken[0]["exchange"]
    assert main(["promises", "--target", BROKEN, FILE, "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert "**promises broken**" in markdown and "| broken | planner | persona |" in markdown


def test_target_text_reaches_no_output_raw(capsys: pytest.CaptureFixture[str]) -> None:
    target = RosterTarget(lambda: _EscapingDelegate(Roster(), "strict"))
    report = check_all(target, pf.load(FILE), only=["planner"])
    assert not report.kept
    for write in (command.write_text, command.write_markdown, command.write_junit):
        write(report, sys.stdout)
        shown = capsys.readouterr().out
        assert "\x1b" not in shown
    command.write_markdown(report, sys.stdout)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| broken")]
    assert rows and all(row.count(" | ") == 5 for row in rows)


def test_an_unknown_only_id_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["promises", "--target", "reference", FILE, "--only", "plannr"]) == 2
    assert "plannr" in capsys.readouterr().err


def test_a_missing_target_or_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["promises", FILE]) == 2
    assert "--target" in capsys.readouterr().err
