"""The command line: rules, explain and certify, their outputs and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest
from cli_helpers import FAKE, QUIET_TARGET

from subagent_tck.conformance.cli import PLUGGED, main
from subagent_tck.spec import CATALOGUE


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- rules and explain -----------------------------------------------------------------


def test_rules_prints_the_catalogue_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0 and all(rule.id in out for rule in CATALOGUE)


def test_rules_prints_json_with_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "--format", "json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == [r.id for r in CATALOGUE]


def test_rules_prints_the_markdown_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    from subagent_tck.spec.render import docs_markdown

    code, out, _ = run(capsys, "rules", "--format", "markdown")
    assert code == 0 and out == docs_markdown()


def test_explain_prints_one_rule_in_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "tf-07")
    assert code == 0 and "TF-07" in out and "TF-08" not in out
    code, out, _ = run(capsys, "explain", "TF-07", "--format", "json")
    assert code == 0 and json.loads(out)["id"] == "TF-07"


def test_explain_of_an_unknown_id_is_a_clear_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "explain", "XX-99")
    assert code == 2 and out == ""
    assert err.startswith("subagent-tck: error: unknown rule id 'XX-99'")
    assert "subagent-tck rules" in err


@pytest.mark.parametrize("argv", [
    [], ["certify"], ["certify", "--target", "reference", "--timeout", "-1"],
    ["certify", "--target", "reference", "--format", "pdf"], ["rules", "--format", "junit"],
    ["certify", "--target", "reference", "--jobs", "0"],
    ["certify", "--target", "reference", "--jobs", "two"],
])
def test_command_line_mistakes_exit_2(capsys: pytest.CaptureFixture[str],
                                      argv: list[str]) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and "error:" in err


def test_jobs_default_to_the_cores_unless_subagent_tck_jobs_says(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    from subagent_tck.conformance.cliruns import cores, default_jobs

    monkeypatch.delenv("SUBAGENT_TCK_JOBS", raising=False)
    assert default_jobs() == cores() >= 1
    monkeypatch.setenv("SUBAGENT_TCK_JOBS", "3")
    assert default_jobs() == 3
    monkeypatch.setenv("SUBAGENT_TCK_JOBS", "-1")
    report = tmp_path / "cert.json"
    code, _, err = run(capsys, "certify", "--target", "reference", "--report", f"json={report}")
    assert code == 2 and "SUBAGENT_TCK_JOBS='-1'" in err and "give 1 or more" in err
    assert json.loads(report.read_text("utf-8"))["error"]["code"] == "USAGE"


# --- commands of other parts ------------------------------------------------------------


def test_a_plugged_command_gets_its_arguments_and_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "tck_plugged_cmd.py").write_text(
        "def add_arguments(parser):\n"
        "    parser.add_argument('--times', type=int, default=1)\n"
        "def run(args):\n"
        "    print('ran' * args.times)\n"
        "    return 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(PLUGGED, "hello", ("tck_plugged_cmd", "say hello"))
    code, out, _ = run(capsys, "hello", "--times", "2")
    assert (code, out) == (7, "ranran\n")
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "say hello" in out


def test_a_plugged_command_whose_module_is_missing_is_not_offered(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PLUGGED, "ghost", ("tck_no_such_module_anywhere", "boo"))
    code, _, err = run(capsys, "ghost")
    assert code == 2 and "invalid choice: 'ghost'" in err


def test_openapi_prints_the_driver_api_document(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "openapi")
    assert code == 0 and json.loads(out)["openapi"].startswith("3.1")


# --- certify ---------------------------------------------------------------------------


@pytest.mark.parametrize(("target", "exit_code", "verdict"), [
    ("healthy", 0, "verdict: CERTIFIED (exit 0)"),  # a certified target, a text summary
    ("crashing", 3, "verdict: FAILED (exit 3)"),  # a target that breaks the protocol everywhere
])
def test_a_whole_run_exits_with_its_verdicts_code_and_says_it(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, target: str, exit_code: int,
    verdict: str,
) -> None:
    code, out, _ = run(capsys, "certify", "--target", f"{FAKE}{target}")
    assert code == exit_code and verdict in out


def test_a_failed_capability_exits_1_and_prints_the_replay(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType,
) -> None:
    code, out, _ = run(capsys, "certify", "--target", f"{FAKE}broken_filter", "--seed", "5")
    assert code == 1
    assert f"replay: subagent-tck certify --target {FAKE}broken_filter --rule TF-92 --seed 5" in out


def test_a_partial_run_whose_selected_rules_pass_exits_0_but_is_not_a_certificate(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType,
) -> None:
    code, out, _ = run(capsys, "certify", "--target", f"{FAKE}broken_filter", "--rule", "TF-91")
    assert code == 0 and "verdict: PASSED (exit 0); partial run of 1 selected rule(s)" in out
    code, out, _ = run(capsys, "certify", "--target", f"{FAKE}broken_filter", "--rule", "TF-92")
    assert code == 1 and "verdict: FAILED (exit 1)" in out


def test_an_unreachable_target_exits_3(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType,
) -> None:
    code, out, err = run(capsys, "certify", "--target", f"{FAKE}unreachable")
    assert code == 3 and out == ""
    assert err.startswith("subagent-tck: error: the target's info() failed: ConnectionError")


@pytest.mark.parametrize(("argv", "needle"), [
    (["--target", "nonsense"], "subagent-tck: error: unknown target 'nonsense'"),
    (["--target", f"{FAKE}nope"], "has no attribute 'nope'"),
    (["--target", f"{FAKE}healthy", "--rule", "TF-99"], "unknown rule id 'TF-99'"),
    (["--target", f"{FAKE}healthy", "--edition", "request-controls"],
     "does not support edition request-controls: use --edition with one of "
     "preset-composition"),
    (["--target", f"{FAKE}healthy", "--baseline", "missing.toml"], "not found"),
])
def test_usage_mistakes_exit_2_with_the_fix(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, argv: list[str], needle: str,
) -> None:
    code, _, err = run(capsys, "certify", *argv)
    assert code == 2 and err.startswith("subagent-tck: error: ") and needle in err


def test_json_goes_to_stdout_alone(capsys: pytest.CaptureFixture[str], fakes: ModuleType) -> None:
    code, out, _ = run(capsys, "certify", "--target", f"{FAKE}healthy", "--format", "json")
    assert code == 0 and json.loads(out)["verdict"] == "CERTIFIED"


def test_output_writes_the_format_to_a_file_and_summarises_on_the_terminal(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, tmp_path: Path,
) -> None:
    report = tmp_path / "junit.xml"
    code, out, _ = run(capsys, "certify", "--target", f"{FAKE}broken_filter",
                       "--format", "junit", "--output", str(report))
    assert code == 1 and "verdict: FAILED (exit 1)" in out
    assert ET.parse(report).getroot().get("failures") == "1"
    markdown = tmp_path / "comment.md"
    run(capsys, "certify", "--target", f"{FAKE}healthy", "--format", "markdown",
        "--output", str(markdown))
    assert markdown.read_text(encoding="utf-8").startswith("## ✅ subagent-tck: CERTIFIED")


def test_an_unwritable_output_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, tmp_path: Path,
) -> None:
    code, _, err = run(capsys, "certify", "--target", f"{FAKE}healthy", "--output",
                       str(tmp_path / "no" / "such" / "dir.json"))
    assert code == 2 and "cannot write --output" in err


def test_a_baseline_turns_a_known_failure_into_a_pass_of_the_run(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, tmp_path: Path,
) -> None:
    baseline = tmp_path / "baseline.toml"
    baseline.write_text('[[expected-fail]]\nrule = "TF-92"\nreason = "fixed in 2.0"\n'
                        'scope = "rule"\n')
    code, out, _ = run(capsys, "certify", "--target", f"{FAKE}broken_filter",
                       "--baseline", str(baseline))
    assert code == 0 and "expected-fail (baseline): TF-92 (spawn: fixed in 2.0)" in out
    baseline.write_text('[[expected-fail]]\nrule = "TF-91"\n')
    code, _, err = run(capsys, "certify", "--target", f"{FAKE}broken_filter",
                       "--baseline", str(baseline))
    assert code == 2 and "entry 1 (line 1): rule TF-91: missing `reason`" in err


def test_the_target_is_closed_after_the_run(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[object] = []

    def tracked() -> object:
        target = fakes.FakeTarget()
        made.append(target)
        return target

    monkeypatch.setattr(fakes, "tracked", tracked, raising=False)
    run(capsys, "certify", "--target", f"{FAKE}tracked")
    assert [t.closed for t in made] == [True]  # type: ignore[attr-defined]


DRIVER = """
import sys
from hypothesis import strategies as st

import subagent_tck.conformance.cli as cli
from subagent_tck.conformance.engine.check import Check
from subagent_tck.conformance.engine.runner import Suite
from subagent_tck.spec import RULES_BY_ID
""" + QUIET_TARGET + """

def target():
    return Quiet()


def drawing(ctx):
    # text, so that Hypothesis needs its Unicode table, which it writes where its home is
    ctx.for_all(st.tuples(st.integers(17, 4242), st.text()),
                lambda t: ctx.expect("CA-05", t[0] > 16, "n > 16"))


checks = {"drawing": Check("drawing", ("CA-05",), drawing)}
Suite.default = classmethod(lambda cls: Suite((RULES_BY_ID["CA-05"],), checks))
if sys.argv[1:] == ["control"]:
    cli._private_hypothesis_storage = lambda stack: None
# A fixed seed: whether Hypothesis writes its cache in the control run depends on the draws.
sys.exit(cli.main(["certify", "--target", "python:driver:target", "--seed", "0"]))
"""


@pytest.mark.parametrize(("argv", "littered"), [(["control"], True), ([], False)])
def test_certify_keeps_hypothesis_caches_out_of_the_working_directory(
    tmp_path: Path, argv: list[str], littered: bool,
) -> None:
    (tmp_path / "driver.py").write_text(DRIVER)
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    done = subprocess.run([sys.executable, "driver.py", *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    # The control run shows that this scenario does write a cache when nothing redirects it.
    assert (tmp_path / ".hypothesis").exists() == littered


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("subagent-tck")
    done = subprocess.run([str(script), "explain", "DE-03"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0 and "DE-03" in done.stdout


def test_certify_keeps_only_hypothesis_unicode_table_in_the_user_cache_and_reuses_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    # a fresh interpreter, as a user runs it (this one may hold the table in memory already)
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify", "--target",
               "reference", "--rule", "DE-05", "--seed", "1"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    kept = tmp_path / "cache" / "subagent-tck" / "hypothesis"
    assert [p.name for p in kept.iterdir()] == ["unicode_data"]  # no example database
    assert list((kept / "unicode_data").rglob("charmap*"))
    assert not (tmp_path / ".hypothesis").exists()
    seen: list[list[str]] = []
    from hypothesis import configuration

    real = configuration.set_hypothesis_home_dir

    def spy(directory: object) -> None:
        if directory is not None:
            seen.append(sorted(p.name for p in Path(str(directory)).iterdir()))
        real(directory)  # type: ignore[arg-type]

    monkeypatch.setattr(configuration, "set_hypothesis_home_dir", spy)
    assert main(["certify", "--target", "reference", "--rule", "DE-05", "--seed", "1"]) == 0
    assert seen == [["unicode_data"]]  # the second run starts with the table


def test_a_unicode_table_the_cache_lacks_joins_it_after_the_run_that_built_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a cache an earlier run made (another Python's Unicode version, or before a codec's table
    # was needed): each table the next run builds is added, each one it holds stays as it was
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    kept = tmp_path / "cache" / "subagent-tck" / "hypothesis" / "unicode_data"
    older = kept / "0.0.0" / "charmap.json.gz"
    older.parent.mkdir(parents=True)
    older.write_bytes(b"a table of another Unicode version")
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify", "--target",
               "reference", "--rule", "DE-05", "--seed", "1"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    version = kept / unicodedata.unidata_version
    built = sorted(p.name for p in version.iterdir())
    assert "charmap.json.gz" in built and len(built) > 1, built  # the UTF-8 codec's table too
    assert older.read_bytes() == b"a table of another Unicode version"
    assert not [p for p in kept.rglob(".*")]  # no staging file left behind
    for table in version.iterdir():
        if table.name != "charmap.json.gz":
            table.unlink()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in version.iterdir()) == built


def test_certify_runs_when_the_user_cache_cannot_be_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.chdir(tmp_path)
    assert main(["certify", "--target", "reference", "--rule", "DE-05", "--seed", "1"]) == 0
    assert blocker.read_text() == "a file where the cache directory would go"


def test_baseline_write_warns_when_it_excuses_errors_of_the_target(
    capsys: pytest.CaptureFixture[str], fakes: ModuleType, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from subagent_tck.conformance.core import certificate_file

    known = {**certificate_file.RULES_BY_ID, **{r.id: r for r in fakes.RULES}}
    monkeypatch.setattr(certificate_file, "RULES_BY_ID", known)  # the fake suite's rules
    cert, baseline = tmp_path / "c.json", tmp_path / "b.toml"
    run(capsys, "certify", "--target", f"{FAKE}crashing", "--report", f"json={cert}")
    code, out, err = run(capsys, "baseline", "write", str(cert), "--reason", "r", "-o",
                         str(baseline))
    assert code == 0 and "excused" in out
    assert "are errors of the target, not verdicts" in err and "error PROTOCOL_ERROR" in err
