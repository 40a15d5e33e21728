"""Conventions of the command line: --version, python -m subagent_tck, one error style across
commands, "did you mean", --provider and fuzz-api's refusal of unknown operations."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import test_cli

from subagent_tck.conformance.api_fuzz import check_operations, known_operations
from subagent_tck.spec import CATALOGUE, ErrorCode, TckError, catalogue_hash

FAKE, run = test_cli.FAKE, test_cli.run

ERROR_LINE = re.compile(r"^subagent-tck: error: .+ \(code [A-Z_]+\)$")


def last_line(err: str) -> str:
    return err.rstrip("\n").splitlines()[-1]


# --- --version and python -m -----------------------------------------------------------


def test_version_prints_the_kit_version_and_the_catalogue_hash(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.startswith(f"subagent-tck {importlib.metadata.version('subagent-tck')} (")
    assert catalogue_hash()[:12] in out
    assert f"{len(CATALOGUE)} rules" in out


def test_python_dash_m_subagent_tck_runs_the_command_line(tmp_path: Path) -> None:
    # From a directory that is not the source tree: the installed package answers.
    done = subprocess.run([sys.executable, "-m", "subagent_tck", "--version"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("subagent-tck ") and catalogue_hash()[:12] in done.stdout
    done = subprocess.run([sys.executable, "-m", "subagent_tck", "explain", "tf1"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "did you mean TF-01?" in done.stderr
    assert ERROR_LINE.match(last_line(done.stderr)), done.stderr


# --- one error style ---------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["rules", "--format", "yaml"],
    ["explain", "XX-99"],
    ["certify"],
    ["certify", "--target", "nonsense"],
    ["certify", "--target", "reference", "--timeout", "-1"],
    ["fuzz", "--target", "nonsense"],
    ["fuzz-api", "--target", "reference", "--operation", "nosuchop"],
    ["serve", "--port", "70000"],
    ["openapi", "--bogus"],
    ["no-such-command"],
])
def test_every_command_reports_a_usage_error_in_one_style_and_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str],
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert ERROR_LINE.match(last_line(err)), err
    assert last_line(err).endswith("(code USAGE)")


def test_a_target_fault_is_reported_in_the_same_style_and_exits_3(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType,
) -> None:
    code, _, err = run(capsys, "certify", "--target", f"{FAKE}unreachable")
    assert code == 3 and ERROR_LINE.match(last_line(err))
    assert last_line(err).endswith("(code TARGET_UNREACHABLE)")


def test_target_text_in_an_error_line_cannot_drive_the_terminal(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, monkeypatch: pytest.MonkeyPatch,
) -> None:
    hostile = "\x1b[2J\x1b]0;pwned\x07\u202eevil\ud800"
    monkeypatch.setattr(fakes, "unreachable", lambda: fakes.FakeTarget(
        info_error=ConnectionError(hostile)))
    code, _, err = run(capsys, "certify", "--target", f"{FAKE}unreachable")
    assert code == 3
    assert not {"\x1b", "\x07", "\u202e", "\ud800"} & set(err)
    assert "\\x1b[2J" in err and "\\u202e" in err


# --- did you mean ------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "needle"), [
    (["certify", "--target", "refernce"], "(did you mean 'reference'?)"),
    (["certify", "--target", "pyhton:mod:make"], "(did you mean 'python:mod:make'?)"),
    (["certify", "--target", "htp://127.0.0.1:9"], "(did you mean 'http://127.0.0.1:9'?)"),
    (["certify", "--target", f"{FAKE}helthy"], "(did you mean 'healthy'?)"),
    (["certify", "--target", f"{FAKE}healthy", "--rule", "tf91"], "(did you mean TF-91?)"),
    (["certify", "--target", f"{FAKE}healthy", "--rule", "tf_091"], "(did you mean TF-91?)"),
    (["certify", "--target", f"{FAKE}healthy", "--provider", "spwan"],
     "(did you mean 'spawn'?)"),
    (["certify", "--target", f"{FAKE}healthy", "--edition", "preset-compositon"],
     "(did you mean 'preset-composition'?)"),
    (["certify", "--target", f"{FAKE}healthy", "--profile", "thorogh"],
     "(did you mean 'thorough'?)"),
    (["certify", "--target", f"{FAKE}healthy", "--format", "jsn"], "(did you mean 'json'?)"),
    (["certfy", "--target", "reference"], "(did you mean 'certify'?)"),
    (["explain", "DE3"], "(did you mean DE-03?)"),
    (["explain", "TF-1"], "(did you mean TF-01?)"),
    (["fuzz-api", "--target", "reference", "--operation", "vew"], "(did you mean 'view'?)"),
])
def test_a_misspelt_name_gets_a_did_you_mean(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, argv: list[str], needle: str,
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and needle in last_line(err), err


def test_a_name_close_to_nothing_gets_no_suggestion(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType,
) -> None:
    code, _, err = run(capsys, "certify", "--target", f"{FAKE}healthy", "--provider", "zzzzzz")
    assert code == 2 and "did you mean" not in err and "spawn, acp" in err


# --- --provider ----------------------------------------------------------------------------


def _certificate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code, out, _ = run(capsys, "certify", "--format", "json", *argv)
    return code, json.loads(out)


def test_provider_certifies_only_the_named_provider(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # acp breaks a core rule: the whole target fails, but spawn alone is certified.
    monkeypatch.setattr(fakes, "healthy", lambda: fakes.FakeTarget({("DE-91", "acp"): "break"}))
    code, whole = _certificate(capsys, "--target", f"{FAKE}healthy")
    assert code == 1 and whole["selected_providers"] is None
    code, cert = _certificate(capsys, "--target", f"{FAKE}healthy", "--provider", "spawn")
    assert code == 0 and cert["verdict"] == "CERTIFIED"
    assert cert["selected_providers"] == ["spawn"]
    assert {v["provider"] for v in cert["verdicts"]} == {"spawn"}
    cells = {p["provider"] for r in cert["rules"] for p in r["providers"]}
    assert cells == {"spawn", None}  # None: the rules that bind the whole target still ran
    assert cert["target"]["info"]["providers"][1]["name"] == "acp"  # the identity is whole
    code, cert = _certificate(capsys, "--target", f"{FAKE}healthy", "--provider", "acp")
    assert code == 1
    assert "--provider acp" in cert["rules"][[r["id"] for r in cert["rules"]].index(
        "DE-91")]["replay"]


def test_provider_still_fails_on_a_rule_that_binds_the_whole_target(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fakes, "healthy", lambda: fakes.FakeTarget({("FR-91", "*"): "break"}))
    code, cert = _certificate(capsys, "--target", f"{FAKE}healthy", "--provider", "spawn")
    assert code == 1 and cert["verdict"] == "FAILED"
    assert any("FR-91" in b for v in cert["verdicts"] for b in v["blocking"])


def test_provider_is_repeatable(capsys: pytest.CaptureFixture[str], fakes: ModuleType) -> None:
    code, cert = _certificate(capsys, "--target", f"{FAKE}healthy", "--provider", "acp",
                              "--provider", "spawn")
    assert code == 0 and cert["selected_providers"] == ["acp", "spawn"]


# --- fuzz-api --operation ------------------------------------------------------------------


def test_fuzz_api_refuses_an_unknown_operation_and_lists_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "fuzz-api", "--target", "reference", "--operation",
                         "nosuchop", "--probes-only")
    assert code == 2 and out == ""
    code, out, err = run(capsys, "fuzz-api", "--target", "reference", "--operation", "nosuchop")
    assert code == 2 and out == "" and "nosuchop" in err
    assert all(name in err for name in known_operations())


def test_every_operation_of_the_driver_api_document_is_accepted() -> None:
    from subagent_tck.conformance.transports.openapi import document

    segments = {p.rsplit("/", 1)[-1] for p, methods in document()["paths"].items()
                if "post" in methods or "get" in methods}
    assert segments == set(known_operations())
    check_operations(tuple(sorted(segments)))  # no error
    with pytest.raises(TckError) as caught:
        check_operations(("view", "nosuchop"))
    assert caught.value.code == ErrorCode.USAGE
