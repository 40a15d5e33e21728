"""Which Claude Code the adapter runs (adapters/claude-code/claude_code_adapter/install.py) and
how it writes the depth setting (run.py), without running Claude Code: install folders are
made here as npm leaves them (a package.json, then ``cli.js`` or a native ``bin/claude.exe``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "claude-code"))

from claude_code_adapter import install, run

from subagent_tck.conformance.transports.traffic_runs import setting_text
from subagent_tck.spec import ErrorCode, TckError

versions = st.tuples(st.just(2), st.just(1), st.integers(19, 400)).map(
    lambda v: ".".join(map(str, v)))


def _package(root: Path, version: str, kind: str) -> Path:
    """An install folder as ``npm install @anthropic-ai/claude-code@VERSION`` leaves it:
    ``cli`` (up to 2.1.112), ``native`` (the postinstall copied the binary) or ``stub`` (it
    did not: the placeholder script is still there)."""
    package = root / "node_modules" / "@anthropic-ai" / "claude-code"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": install.PACKAGE,
                                                      "version": version}), encoding="utf-8")
    if kind == "cli":
        (package / "cli.js").write_text("// cli\n", encoding="utf-8")
    elif kind == "native":
        (package / "bin" / "claude.exe").write_bytes(b"\x7fELF" + b"\0" * 60)
    else:
        (package / "bin" / "claude.exe").write_text("#!/bin/sh\necho stub\n", encoding="utf-8")
    return package


@given(versions)
def test_the_delegation_tool_is_task_before_2_1_63_and_agent_since(version: str) -> None:
    found = install.Install(Path("."), version, ("claude",))
    patch = found.release[2]
    assert found.tool == ("Agent" if patch >= 63 else "Task")
    assert found.nesting == (patch >= 172)


@pytest.mark.parametrize(("kind", "runs"), [("cli", "cli.js"), ("native", "claude.exe")])
def test_an_install_folder_runs_its_cli_js_or_its_native_binary(
        tmp_path: Path, kind: str, runs: str) -> None:
    _package(tmp_path, "2.1.19" if kind == "cli" else "2.1.332", kind)
    for given_folder in (tmp_path, tmp_path / "node_modules" / "@anthropic-ai" / "claude-code"):
        found = install.find(given_folder)
        assert found.command[-1].endswith(runs)
        assert found.version == ("2.1.19" if kind == "cli" else "2.1.332")


@pytest.mark.parametrize(("setup", "says"), [
    ("stub", "postinstall"),
    ("old", "older than"),
    ("empty", "holds no @anthropic-ai/claude-code"),
])
def test_an_install_the_adapter_cannot_run_is_refused_naming_the_fix(
        tmp_path: Path, setup: str, says: str) -> None:
    if setup == "stub":
        _package(tmp_path, "2.1.332", "stub")
    elif setup == "old":
        _package(tmp_path, "2.0.77", "cli")
    with pytest.raises(TckError) as refused:
        install.find(tmp_path)
    assert refused.value.code is ErrorCode.USAGE and says in refused.value.message


def test_the_environment_variable_names_the_install_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, "2.1.200", "native")
    monkeypatch.setenv(install.ENV, str(tmp_path))
    assert install.find().version == "2.1.200"


@pytest.mark.parametrize(("value", "text"), [
    (3, "3"), (3.0, "3"), (0, "0"), (-1, "-1"), (-0.0, "-0"), (0.5, "0.5"),
    (2**53, "9007199254740992"), (float(2**53), "9007199254740992"), (float("nan"), "NaN"),
    (float("inf"), "Infinity"), (float("-inf"), "-Infinity"), ("1", "1"), (True, "true"),
    (None, "null"), ([], "[]"), ({}, "{}"),
])
def test_a_depth_is_written_as_a_claude_code_user_writes_the_variable(
        value: object, text: str) -> None:
    """The adapter writes CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH and Claude Code reads it
    (docs/claude-code.md#depth): a value outside the domain reaches Claude Code as written."""
    assert setting_text(value) == text


def test_a_run_of_the_root_and_one_as_a_definition_take_their_own_flags(tmp_path: Path) -> None:
    claude = install.Install(tmp_path, "2.1.62", ("claude",))
    as_root = run.command(claude, run.Run("go", system="persona"), tmp_path / "m.json",
                          ["tck", "alpha"])
    assert as_root[as_root.index("--system-prompt") + 1] == "persona"
    assert as_root[as_root.index("--tools") + 1] == "Task" and "--agent" not in as_root
    assert [as_root[i + 1] for i, a in enumerate(as_root) if a == "--allowedTools"] == [
        "mcp__tck", "mcp__alpha"]
    as_agent = run.command(claude, run.Run("go", agent="tck-root"), tmp_path / "m.json", [])
    assert as_agent[as_agent.index("--agent") + 1] == "tck-root"
    assert "--system-prompt" not in as_agent
    env = run.environment(tmp_path, "http://127.0.0.1:9/p/d1", "5")
    assert env[run.SETTING] == "5" and env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1")
    assert run.SETTING not in run.environment(tmp_path, "http://127.0.0.1:9", None)
