"""action.yml, the composite GitHub Action (docs/ci.md), run as the runner would run it: each
step's script in bash, its ``env`` with the inputs substituted, ``GITHUB_OUTPUT`` and
``GITHUB_STEP_SUMMARY`` as files, a step's ``if: always()`` honoured. The install step is left
out (the kit is installed already: it would reinstall the project over this environment)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def _value(expression: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    if expression.startswith("inputs."):
        return inputs[expression.removeprefix("inputs.")]
    step, _, name = expression.removeprefix("steps.").partition(".outputs.")
    if expression.startswith("steps.") and name:
        return outputs.get(step, {}).get(name, "")
    if expression == "github.action_path":
        return str(ROOT)
    raise AssertionError(f"action.yml uses an expression this runner does not know: {expression}")


def run_action(tmp_path: Path, **given: str) -> tuple[int, dict[str, str], str]:
    """Run the action's steps; (the job's exit code, the certify step's outputs, summary)."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    inputs.update({name.replace("_", "-"): value for name, value in given.items()})
    inputs["install"] = "false"
    inputs["report-dir"] = str(tmp_path / "subagent-tck-reports")
    summary = tmp_path / "summary.md"
    outputs: dict[str, dict[str, str]] = {}
    failed = 0
    for step in ACTION["runs"]["steps"]:
        condition = step.get("if", "")
        if step["id"] == "install" or (failed and condition != "always()"):
            continue
        assert step["shell"] == "bash"
        output = tmp_path / f"{step['id']}.out"
        output.write_text("", "utf-8")
        env = {**os.environ, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
               **{k: EXPRESSION.sub(lambda m: _value(m.group(1), inputs, outputs), str(v))
                  for k, v in step.get("env", {}).items()}}
        assert "${{" not in step["run"], f"step {step['id']} splices an expression into its script"
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)
        outputs[step["id"]] = dict(line.split("=", 1) for line in
                                   output.read_text("utf-8").splitlines() if "=" in line)
        if done.returncode and not failed:
            failed = done.returncode
    return failed, outputs.get("certify", {}), summary.read_text("utf-8")


def _certificate(tmp_path: Path) -> Any:
    return json.loads((tmp_path / "subagent-tck-reports" / "certificate.json").read_text("utf-8"))


def test_the_action_passes_the_job_when_the_reference_passes(tmp_path: Path) -> None:
    code, outputs, summary = run_action(tmp_path, target="reference", seed="3",
                                        extra_args="--rule TF-01 --rule CA-01")
    assert code == 0 and outputs == {"exit-code": "0", "verdict": "PASSED"}
    assert _certificate(tmp_path)["seed"] == 3
    assert summary.startswith("## ") and "PASSED" in summary
    assert (tmp_path / "subagent-tck-reports" / "junit.xml").exists()


@pytest.mark.parametrize("edition", ["", "preset-composition"])
def test_the_action_fails_the_job_on_a_red_verdict_and_still_writes_the_summary(
    tmp_path: Path, edition: str,
) -> None:
    code, outputs, summary = run_action(
        tmp_path, target="python:examples.providers.deny_before_allow:provider",
        edition=edition, extra_args="--rule TF-01")
    assert code == 1 and outputs == {"exit-code": "1", "verdict": "FAILED"}
    assert "TF-01" in summary and "FAILED" in summary
    assert _certificate(tmp_path)["verdict"] == "FAILED"


def test_a_hostile_target_argument_reaches_the_kit_as_text_never_as_shell(tmp_path: Path) -> None:
    hostile = f'reference"; touch {tmp_path}/pwned; echo "'
    code, outputs, summary = run_action(tmp_path, target=hostile)
    assert not (tmp_path / "pwned").exists()
    assert code == 2 and outputs["exit-code"] == "2" and outputs["verdict"] == "ERROR"
    assert summary  # the usage error's report is the summary
