"""Against a real adapter process: a connection that breaks in the middle of a run is an error
of the target (exit 3), never a failed rule; Ctrl-C while the adapter is silent stops it and
replaces the report (docs/certify.md#outputs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from http_helpers import adapter_command, ctrl_c, ctrl_c_as_from_a_shell, gone_within

from subagent_tck.conformance.cli import main


def test_an_adapter_that_dies_mid_run_is_an_error_not_a_failed_rule(tmp_path: Path) -> None:
    report = tmp_path / "cert.json"
    code = main(["certify", "--target", f"cmd:{adapter_command('exit-mid-run')}",
                 "--report", f"json={report}"])
    assert code == 3
    document = json.loads(report.read_text("utf-8"))
    outcomes = {r["outcome"] for r in document["rules"]}
    assert "error" in outcomes and "fail" not in outcomes
    errors = [f for r in document["rules"] for f in r["failures"]]
    assert errors and all(f["error"] for f in errors)


def test_ctrl_c_before_any_check_stops_the_adapter_and_replaces_the_report(
    tmp_path: Path,
) -> None:
    report, pidfile = tmp_path / "cert.json", tmp_path / "adapter.pid"
    report.write_text('{"verdict": "CERTIFIED"}\n', encoding="utf-8")
    env = {**os.environ, "PIDFILE": str(pidfile), "CI": "true"}
    process = subprocess.Popen(
        [sys.executable, "-m", "subagent_tck.conformance.cli", "certify", "--target",
         f"cmd:{adapter_command('silent')}", "--report", f"json={report}"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=ctrl_c_as_from_a_shell)
    # once the adapter is up, the kit waits for the silent adapter's info
    err = ctrl_c(process, pidfile.exists, settle=0.5)
    assert process.returncode == 130, err
    assert err.strip().splitlines() == [next(line for line in err.splitlines()
                                             if line.startswith("interrupted: "))]
    assert gone_within([int(pidfile.read_text())])
    document = json.loads(report.read_text("utf-8"))
    assert document["verdict"] == "ERROR" and document["error"]["code"] == "INTERRUPTED"
