"""``subagent-tck fuzz``: exit codes, the printed counterexample and replay command, replays."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

import pytest

from subagent_tck.conformance.cli import main

ENTRY = "python:examples.providers.case_insensitive_allow:provider"


def fuzz(*argv: str) -> int:
    return main(["fuzz", *argv])


def test_a_divergence_exits_1_and_prints_the_steps_and_a_replay_command_that_reproduces_it(
    at_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    code = fuzz("--target", ENTRY, "--budget", "30", "--seed", "0", "--no-database",
                "--output-dir", str(out_dir))
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert "DIVERGENCE from the spec oracle: TF-01 allow-before-deny" in captured.out
    assert "   1. " in captured.out and "expected:" in captured.out
    assert "fuzz: target" in captured.err  # progress lines go to stderr
    command = next(line.split("replay: ", 1)[1] for line in captured.out.splitlines()
                   if line.startswith("replay: "))
    argv = shlex.split(command)
    assert argv[:2] == ["subagent-tck", "fuzz"] and "--replay" in argv
    assert main(argv[1:]) == 1
    again = capsys.readouterr().out
    assert "the same divergence showed again" in again


def test_the_reference_exits_0_and_a_fixed_bug_replays_clean(
    at_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fuzz("--target", "reference", "--max-examples", "5", "--database",
                str(tmp_path / "db"), "--output-dir", str(tmp_path)) == 0
    assert "no divergence" in capsys.readouterr().out
    assert fuzz("--target", ENTRY, "--budget", "30", "--no-database", "--output-dir",
                str(tmp_path)) == 1
    replay_file = next(tmp_path.glob("fuzz-*.json"))
    capsys.readouterr()
    assert fuzz("--replay", str(replay_file), "--target", "reference") == 0
    assert "no divergence any more" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["--target", "nowhere:at-all"],
    ["--target", "reference", "--budget", "0"],
    ["--target", "reference", "--profile", "weekly"],
    ["--target", "reference", "--replay", "missing.json"],
    ["--budget", "5"],
])
def test_a_usage_mistake_exits_2(
    at_root: Path, tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert fuzz(*argv, "--output-dir", str(tmp_path)) == 2


@pytest.mark.parametrize(("argv", "said"), [
    (["--engine", "hypofuzz", "--seed", "1"], "--seed belongs to the in-process engine"),
    (["--engine", "hypofuzz", "--max-examples", "3"], "--max-examples belongs to the in-process"),
    (["--engine", "hypofuzz", "--no-database"], "drop --no-database"),
    (["--engine", "hypofuzz", "--workers", "0"], "--workers must be positive"),
    (["--workers", "2"], "belong to --engine hypofuzz"),
    (["--stall-timeout", "5"], "belong to --engine hypofuzz"),
    # a Redis that cannot be reached at the start: the command that starts one (port 1: closed);
    # where the extras are not installed (every per-Python environment), the install command
    (["--database", "redis://127.0.0.1:1/0", "--max-examples", "1"], "redis-server --port"),
    (["--engine", "hypofuzz", "--database", "redis://127.0.0.1:1/0"], "redis-server --port"),
])
def test_a_mistake_with_the_engine_or_the_shared_database_exits_2_naming_the_fix(
    at_root: Path, tmp_path: Path, argv: list[str], said: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if said == "redis-server --port":
        said = _missing_extra_fix("hypofuzz" in argv) or said
    assert fuzz("--target", "reference", *argv, "--output-dir", str(tmp_path)) == 2
    assert said in capsys.readouterr().err


def _missing_extra_fix(hypofuzz: bool) -> str | None:
    """The install command the kit names first when an extra the argv needs is missing."""
    if hypofuzz and importlib.util.find_spec("hypofuzz") is None:
        return "pip install 'subagent-tck[hypofuzz]'"
    if importlib.util.find_spec("redis") is None:
        return "pip install 'subagent-tck[redis]'"
    return None


def test_a_replay_file_of_another_version_is_a_usage_error(
    at_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "old.json"
    bad.write_text('{"version": 99, "steps": []}')
    assert fuzz("--target", "reference", "--replay", str(bad)) == 2
    assert "version" in capsys.readouterr().err
