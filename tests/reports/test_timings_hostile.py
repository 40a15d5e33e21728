"""``certify --timings`` labels its check runs with the providers a target names: the hostile
target's names (tests/reports/hostile_target.py) reach the timings lines of the text report
escaped like every other target-supplied text, and the JSON keeps them whole
(docs/certify.md#timings, docs/certify.md#outputs)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from subagent_tck.conformance.core.untrusted import for_terminal

from .hostile_target import NAME
from .test_hostile_outputs import RAW_CONTROL, SCHEMA, certify_hostile


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One timed certification of the hostile target: its text report and its JSON."""
    run = certify_hostile(tmp_path_factory.mktemp("timed-hostile"), ("json", "text"),
                          "--timings", "--rule", "PE-01", "--seed", "0")
    assert run.code in (1, 3)
    return {"stdout": run.stdout,
            **{fmt: path.read_text("utf-8") for fmt, path in run.files.items()}}


def _timing_lines(text: str) -> list[str]:
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("timings ("))
    return lines[head:]


def test_a_provider_name_in_a_timed_check_label_is_escaped_in_the_text_report(
    reports: dict[str, str],
) -> None:
    for text in (reports["stdout"], reports["text"]):
        timed = _timing_lines(text)
        labelled = [line for line in timed if f"[{for_terminal(NAME)}]" in line]
        assert labelled, "the evil provider's check run is among the slowest listed"
        assert not RAW_CONTROL.search("\n".join(timed)), RAW_CONTROL.search("\n".join(timed))
        assert any("[bold red]styled[/bold red]" in line for line in labelled)  # not styled


def test_the_json_timings_keep_the_provider_name_whole_and_validate(
    reports: dict[str, str],
) -> None:
    document = json.loads(reports["json"])
    jsonschema.validate(document, SCHEMA)
    providers = {entry["provider"] for entry in document["timings"]["checks"]}
    assert NAME in providers
