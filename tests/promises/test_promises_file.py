"""The promises file: schema, strict loading and errors that name the line (docs/promises.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagent_tck.conformance.core import promises_file as pf
from subagent_tck.spec import ErrorCode, TckError

ROOT = Path(__file__).resolve().parents[2]
ROSTER = ROOT / "examples" / "roster" / "promises.toml"

BASE = '''version = 1
[deployment]
persona = "Parent persona."
tools = ["read", "write"]
plugin_tools = ["delegate"]

[[promise]]
id = "first"
trigger = { tool = "delegate", arguments = { role = "a" } }
tools = { exactly = ["read"] }

[[promise]]
id = "second"
[promise.trigger]
tool = "delegate"
[promise.tools]
never = ["write"]
'''


def _error(text: str) -> TckError:
    with pytest.raises(TckError) as caught:
        pf.parse(text, "p.toml")
    assert caught.value.code is ErrorCode.USAGE
    return caught.value


def test_the_committed_json_schema_is_the_models_schema() -> None:
    assert pf.SCHEMA_PATH.read_text(encoding="utf-8") == pf.json_schema()


def test_the_roster_promises_file_loads_with_one_promise_per_role() -> None:
    from examples.roster.roster import ROLES

    parsed = pf.load(ROSTER)
    assert [p.id for p in parsed.promise] == [r.id for r in ROLES]


def test_an_unknown_key_in_a_table_header_promise_names_its_line() -> None:
    text = BASE.replace('never = ["write"]', 'never = ["write"]\nnevr = ["read"]')
    error = _error(text)
    assert "p.toml:18" in error.message and "nevr" in error.message
    assert "exactly, at_least, never" in error.message


def test_an_unknown_key_in_an_inline_table_names_its_line() -> None:
    error = _error(BASE.replace('tools = { exactly = ["read"] }', 'tools = { exact = ["read"] }'))
    assert "p.toml:10" in error.message and "exact" in error.message


def test_an_unknown_tool_names_its_line_and_the_known_tools() -> None:
    error = _error(BASE.replace('never = ["write"]', 'never = ["wirte"]'))
    assert "p.toml:17" in error.message and "'wirte'" in error.message
    assert "delegate, read, write" in error.message


def test_an_unknown_trigger_tool_is_a_usage_error_naming_its_line() -> None:
    error = _error(BASE.replace('tool = "delegate"\n[promise.tools]', 'tool = "dlegate"\n'
                                '[promise.tools]'))
    assert "p.toml:15" in error.message and "dlegate" in error.message


def test_a_promise_that_grants_and_forbids_one_tool_is_refused() -> None:
    error = _error(BASE.replace('never = ["write"]', 'never = ["write"]\nat_least = ["write"]'))
    assert "both grants and forbids write" in error.message


def test_duplicate_ids_and_bad_toml_are_usage_errors() -> None:
    assert "used twice" in _error(BASE.replace('id = "second"', 'id = "first"')).message
    assert "not valid TOML" in _error("version = \n").message


def test_a_missing_file_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(TckError) as caught:
        pf.load(tmp_path / "nope.toml")
    assert caught.value.code is ErrorCode.USAGE and "nope.toml" in caught.value.message


@given(st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True).filter(
    lambda k: k not in {"id", "trigger", "persona", "tools", "schemas", "model", "refuses"}),
    st.integers(min_value=0, max_value=1))
def test_any_unknown_promise_key_is_refused_at_its_own_line(key: str, which: int) -> None:
    lines = BASE.splitlines()
    anchor = [i for i, line in enumerate(lines) if line.startswith("id = ")][which]
    lines.insert(anchor + 1, f"{key} = 1")
    error = _error("\n".join(lines) + "\n")
    assert f"p.toml:{anchor + 2}:" in error.message and key in error.message


def test_the_schema_command_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    from subagent_tck.conformance.cli import main

    assert main(["promises", "--schema"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "PromisesFile"


def test_a_persona_or_tools_table_that_checks_nothing_is_refused() -> None:
    error = _error(BASE.replace('tools = { exactly = ["read"] }',
                                'tools = { }\npersona = { parent_absent = false }'))
    assert "tools promise checks nothing" in error.message
    assert "persona promise checks nothing" in error.message
    assert "p.toml:10" in error.message and "p.toml:11" in error.message
