"""An adapter's processes and output (conformance/transports/launcher.py,
conformance/transports/processes.py):
nothing outlives the run, output never blocks the adapter, the ready host is loopback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from http_helpers import adapter_command, alive, gone_within, launched_kit, pids_of

from subagent_tck.conformance.transports import launcher
from subagent_tck.conformance.transports.launcher import launch, ready_url
from subagent_tck.spec import ErrorCode, TckError


def process_adapter(mode: str, arg: str) -> str:
    return adapter_command(mode, arg, script="process_adapter.py")


def kill(pids: list[int]) -> None:
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_child_that_moves_into_its_own_process_group_is_stopped(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    target = launch(process_adapter("jobs", str(pidfile)), timeout=5)
    pids = pids_of(pidfile)
    try:
        child = pids[1]
        assert os.getpgid(child) != target.adapter.pgid  # it did leave the adapter's group
        target.close()
        assert gone_within(pids), "a child in another process group outlived the run"
        assert target.adapter.escaped == []
    finally:
        kill(pids)


def test_an_orphaned_grandchild_in_a_new_session_without_the_marker_is_stopped(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pids"
    target = launch(process_adapter("setsid", str(pidfile)), timeout=5)
    pids = pids_of(pidfile)
    try:
        grand = psutil.Process(pids[1])
        assert os.getsid(grand.pid) != target.adapter.pgid  # out of the session
        assert launcher.MARKER not in grand.environ()  # and without the marker
        target.close()
        assert gone_within(pids), "a grandchild that called setsid outlived the run"
    finally:
        kill(pids)


def test_a_process_of_the_adapter_that_cannot_be_stopped_is_named_in_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pidfile = tmp_path / "pids"
    target = launch(process_adapter("setsid", str(pidfile)), timeout=5)
    pids = pids_of(pidfile)
    grand = pids[1]
    real = psutil.Process.send_signal

    def refuse(self: psutil.Process, sig: int) -> None:
        if self.pid == grand:  # as a process of another user would
            raise psutil.AccessDenied(self.pid)
        real(self, sig)

    monkeypatch.setattr(psutil.Process, "send_signal", refuse)
    try:
        target.adapter.grace = 0.3
        target.close()
        assert alive(grand)
        err = capsys.readouterr().err
        assert f"pid {grand} (sleep 300)" in err and "could not be stopped" in err
        assert target.adapter.escaped == [f"pid {grand} (sleep 300)"]
        assert not alive(pids[0])
    finally:
        kill(pids)


KIT = textwrap.dedent("""
    import sys, time
    from subagent_tck.conformance.transports.launcher import AdapterProcess, split_command
    adapter = AdapterProcess(split_command(sys.argv[1]), grace=1.0)
    adapter.wait_ready(10)
    time.sleep(0.6)  # the tracker has seen the grandchild and told the watchdog
    print("launched", flush=True)
    time.sleep(60)
""")


@pytest.mark.parametrize("mode", ["jobs", "setsid"])
def test_the_watchdog_stops_escaped_processes_when_the_kit_is_killed(
    tmp_path: Path, mode: str,
) -> None:
    pidfile = tmp_path / "pids"
    pids: list[int] = []
    try:
        with launched_kit(KIT, process_adapter(mode, str(pidfile))) as kit:
            pids = pids_of(pidfile)
            kit.kill()
            kit.wait(10)
            assert gone_within(pids, 10), f"left running after the kit was killed: {pids}"
    finally:
        kill(pids)


def test_ten_megabytes_of_log_before_and_after_the_ready_line_do_not_stall_the_start() -> None:
    started = time.monotonic()
    target = launch(process_adapter("flood", "10"), startup_timeout=20, timeout=20)
    try:
        assert target.info().name == "broken"  # answered only once its floods were drained
        assert time.monotonic() - started < 20
        assert list(target.adapter.stdout_tail)[-1] == "x" * 99
        assert len(target.adapter.stderr_tail) == 40  # a bounded tail, not 100,000 lines
    finally:
        target.close()


def test_an_overlong_line_is_kept_cut_and_the_ready_line_after_it_is_still_read() -> None:
    script = ("import sys; sys.stdout.write('y' * 3_000_000 + '\\n'); "
              "print('SUBAGENT_TCK_READY http://127.0.0.1:9', flush=True)")
    adapter = launcher.AdapterProcess([sys.executable, "-c", script], grace=0.5)
    try:
        assert adapter.wait_ready(10) == "http://127.0.0.1:9"
        assert len(adapter.stdout_tail[0]) == launcher.MAX_LINE
    finally:
        adapter.stop()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "example.com", "::", "10.0.0.1"])
def test_a_ready_line_with_a_host_off_loopback_is_a_usage_error_naming_the_fix(
    host: str,
) -> None:
    with pytest.raises(TckError) as caught:
        launch(process_adapter("ready-host", host), timeout=5)
    assert caught.value.code is ErrorCode.USAGE
    assert "not a loopback address" in caught.value.message
    assert "bind 127.0.0.1" in caught.value.message


@pytest.mark.parametrize("url", ["http://127.0.0.1:80", "http://127.3.4.5:1", "http://[::1]:8",
                                 "http://localhost:8080", "https://LOCALHOST:1/base"])
def test_a_ready_line_on_loopback_is_accepted(url: str) -> None:
    assert ready_url(f"SUBAGENT_TCK_READY {url}") == url


def test_a_ready_line_with_a_bad_port_is_a_protocol_error() -> None:
    with pytest.raises(TckError) as caught:
        ready_url("SUBAGENT_TCK_READY http://127.0.0.1:99999")
    assert caught.value.code is ErrorCode.PROTOCOL_ERROR


def test_a_group_and_session_whose_leader_pid_was_reused_are_not_taken_for_the_adapters() -> None:
    from subagent_tck.conformance.transports.processes import Family

    stranger = subprocess.Popen(["sleep", "30"], start_new_session=True)  # leads its session
    try:
        born = psutil.Process(stranger.pid).create_time()
        ours = Family(stranger.pid, "token", born=born)
        assert [p.pid for p in ours.members()] == [stranger.pid]
        reused = Family(stranger.pid, "token", born=born - 100.0)  # the adapter was older
        assert reused.members() == []
        assert reused.stop(0.2) == [] and alive(stranger.pid)
    finally:
        stranger.kill()
        stranger.wait()
