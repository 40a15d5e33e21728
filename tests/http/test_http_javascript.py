"""The JavaScript implementation (implementations/javascript/) certifies over the HTTP driver API.

Runs kept few because CI time matters: its own test suite (``npm test``, node's test runner),
then ``subagent-tck certify`` against ``cmd:node implementations/javascript/server.mjs`` in the
default edition, with its whole campaign. The ``request-controls`` edition is certified over
HTTP by tests/http/test_parallel_javascript.py, with one job and with two (each a whole run of
the checks: a third run here took a whole certify's time again). Node 20 is part of the CI
machine: a missing ``node`` fails the test with the fix in its message rather than skipping it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JAVASCRIPT = ROOT / "implementations" / "javascript"
TIMEOUT = 300


def _need(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        pytest.fail(f"`{program}` is not on PATH: install Node.js 20 (it brings node and npm; "
                    "e.g. `apt-get install nodejs npm`) to run the JavaScript implementation")
    return found


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{' '.join(command)} did not finish within {TIMEOUT} s:\n"
                    f"{(exc.stdout or '')!s}\n{(exc.stderr or '')!s}")


def _tail(result: subprocess.CompletedProcess[str], lines: int = 60) -> str:
    return "\n".join((result.stdout + "\n" + result.stderr).splitlines()[-lines:])


def test_the_javascript_implementations_own_tests_pass() -> None:
    _need("node")
    result = _run([_need("npm"), "test"], JAVASCRIPT)
    assert result.returncode == 0, f"npm test exited {result.returncode}:\n{_tail(result)}"


def test_the_javascript_implementation_certifies_over_http_from_the_command_line() -> None:
    node = _need("node")
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify",
               "--target", f"cmd:{node} implementations/javascript/server.mjs"]
    result = _run(command, ROOT)
    assert result.returncode == 0, (
        f"certify (default edition) exited {result.returncode}:\n{_tail(result)}")


def test_fuzzing_the_javascript_implementation_against_the_oracle_finds_no_divergence(
    tmp_path: Path,
) -> None:
    """The differential proof across languages: the state machine drives the JavaScript
    implementation over HTTP and the Python oracle in lockstep (it once found that the two
    disagreed on which depth an AgentRef reports, which the protocol now leaves open)."""
    node = _need("node")
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "fuzz",
               "--target", f"cmd:{node} implementations/javascript/server.mjs",
               "--max-examples", "30", "--seed", "0", "--no-database",
               "--output-dir", str(tmp_path)]
    result = _run(command, ROOT)
    assert result.returncode == 0, f"fuzz exited {result.returncode}:\n{_tail(result)}"
    assert "no divergence: 30 examples" in result.stdout


def test_a_child_request_recorded_after_an_aborted_turn_returned_is_no_change_of_a_later_step(
) -> None:
    """The JavaScript implementation's one flaky seed (3754257782: "a refused operation changed
    model requests" at a restrict that followed an aborted `subagent` call): the abort cancels
    the child's model request in flight, so the turn returns while the gateway is still
    recording that request. Held here until the refused step has taken its first snapshot,
    the request must not count as a change of that step."""
    from subagent_tck.conformance.transports.targets import load_target
    from subagent_tck.fuzz.lockstep import Lockstep
    from subagent_tck.fuzz.lockstep_core import Setup
    from subagent_tck.fuzz.operations import apply
    from subagent_tck.fuzz.step import Step

    target = load_target(f"cmd:{_need('node')} implementations/javascript/server.mjs",
                         wait=60)
    lock = Lockstep(target, Setup())
    resume = threading.Event()
    abort, install = lock.deployment.abort_turn, lock.deployment.install_restriction

    def held_abort(agent: str) -> None:
        abort(agent)
        resume.wait(10)  # the gateway's thread is late: the turn has returned meanwhile

    def install_after_the_late_record(agent: str, value: object) -> str:
        made = len(lock.gateway.exchanges)
        resume.set()
        deadline = time.monotonic() + 10
        while len(lock.gateway.exchanges) == made and time.monotonic() < deadline:
            time.sleep(0.01)
        return install(agent, value)

    lock.deployment.abort_turn = held_abort  # type: ignore[method-assign]
    lock.deployment.install_restriction = install_after_the_late_record  # type: ignore[method-assign]
    steps = [Step(op="load_tool", args={"name": "subagent", "provider": "spawn"}),
             Step(op="call_tool", args={"agent": "root", "name": "subagent", "abort": True}),
             Step(op="restrict", args={"agent": "root", "value": {"allow": ["ghost"]}})]
    try:
        for step in steps:
            apply(lock, step)
        assert resume.is_set(), "the refused restriction never ran"
    finally:
        resume.set()
        lock.close()
        target.close()
