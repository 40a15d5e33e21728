"""The runtime processes of a traffic adapter's deployment (conformance/transports/traffic_runs.py),
with ``sh`` standing in for the runtime: the prompt on standard input, a timeout that kills the
whole process group, an abort, and the MCP servers of the running processes."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from http_helpers import gone_within

from subagent_tck.conformance.transports.traffic_runs import Runs, marked
from subagent_tck.spec import ErrorCode, TckError


def test_a_run_reads_its_prompt_and_ends_with_its_output(tmp_path: Path) -> None:
    runs = Runs("sh", "SUBAGENT_TCK_SH_TIMEOUT")
    done = runs.run(["sh", "-c", "cat; echo oops >&2"], tmp_path, {"PATH": "/usr/bin:/bin"},
                    5.0, b"hello")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"hello", b"oops\n")
    assert not runs.running()


def test_a_run_that_hangs_is_a_timeout_that_leaves_nothing_of_its_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    runs = Runs("sh", "SUBAGENT_TCK_SH_TIMEOUT")
    with pytest.raises(TckError) as refused:
        runs.run(["sh", "-c", f"sleep 60 & echo $! > {pids}; echo late >&2; sleep 60"],
                 tmp_path, {"PATH": "/usr/bin:/bin"}, 0.5)
    assert refused.value.code is ErrorCode.TIMEOUT
    assert "sh did not finish within 0.5 s (SUBAGENT_TCK_SH_TIMEOUT): late" in str(refused.value)
    left = int(pids.read_text())
    assert gone_within([left], 3.0)


def test_an_abort_ends_every_running_process_and_its_servers_are_known_while_it_runs(
        tmp_path: Path) -> None:
    runs = Runs("sh", "SUBAGENT_TCK_SH_TIMEOUT")
    ended = threading.Event()

    def run() -> None:
        runs.run(["sh", "-c", "sleep 60"], tmp_path, {"PATH": "/usr/bin:/bin"}, 30.0,
                 servers=frozenset({"tck"}))
        ended.set()

    threading.Thread(target=run, daemon=True).start()
    deadline = time.monotonic() + 5
    while not runs.running() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert runs.servers() == {"tck"}
    runs.abort()
    assert ended.wait(5) and not runs.running() and runs.servers() == frozenset()


def test_the_kits_marker_is_passed_on_when_the_adapter_carries_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUBAGENT_TCK_ADAPTER", "token")
    assert marked({"PATH": "/bin"}) == {"PATH": "/bin", "SUBAGENT_TCK_ADAPTER": "token"}
    monkeypatch.delenv("SUBAGENT_TCK_ADAPTER")
    assert marked({"PATH": "/bin"}) == {"PATH": "/bin"}
