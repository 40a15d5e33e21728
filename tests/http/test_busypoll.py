"""conformance/transports/busypoll.py: a short busy poll before a blocking read, and when it stays
off."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator

import pytest

from subagent_tck.conformance.cli import main
from subagent_tck.conformance.transports import busypoll
from subagent_tck.conformance.transports.busypoll import MAX_PAUSE, BusyPoll
from subagent_tck.spec import ErrorCode, TckError


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    ours, theirs = socket.socketpair()
    ours.settimeout(5)
    yield ours, theirs
    ours.close()
    theirs.close()


class Counter:
    """A stand-in for the platform: counts relax() calls; switches() grows on each relax() when
    ``shared`` (the CPU went to another thread), else stays put."""

    def __init__(self, shared: bool = False) -> None:
        self.shared = shared
        self.relaxed = 0
        self.switched = 0

    def relax(self) -> None:
        self.relaxed += 1
        if self.shared:
            self.switched += 1

    def switches(self) -> int:
        return self.switched


def test_a_wait_returns_at_once_when_the_bytes_are_already_there(pair):
    ours, theirs = pair
    theirs.sendall(b"x")
    counter = Counter()
    poll = BusyPoll(ours, 1.0, switches=counter.switches, relax=counter.relax)
    began = time.perf_counter()
    poll.wait()
    assert time.perf_counter() - began < 0.5
    assert counter.relaxed == 0
    assert ours.recv(10) == b"x"


def test_a_poll_catches_bytes_another_thread_sends_before_the_window_ends(pair):
    ours, theirs = pair
    counter = Counter()
    poll = BusyPoll(ours, 2.0, switches=counter.switches, relax=counter.relax)
    poll.pause = 8
    timer = threading.Timer(0.05, theirs.sendall, args=(b"late",))
    timer.start()
    began = time.perf_counter()
    poll.wait()
    elapsed = time.perf_counter() - began
    timer.join()
    assert 0.04 <= elapsed < 1.5
    assert counter.relaxed > 0
    assert (poll.caught, poll.handed_over) == (1, 0)
    assert poll.pause == 4  # a catch halves the pause
    ours.settimeout(0)
    assert ours.recv(10) == b"late"  # the bytes are there: the read that follows never waits


def test_a_poll_that_runs_out_of_window_returns_without_the_bytes(pair):
    ours, _ = pair
    counter = Counter()
    poll = BusyPoll(ours, 0.03, switches=counter.switches, relax=counter.relax)
    began = time.perf_counter()
    poll.wait()
    elapsed = time.perf_counter() - began
    assert 0.03 <= elapsed < 1.0
    assert (poll.caught, poll.handed_over, poll.rest) == (0, 0, 0)
    ours.settimeout(0.05)
    with pytest.raises(TimeoutError):  # the socket's own timeout still governs the read
        ours.recv(10)


def test_handing_the_cpu_over_makes_the_next_waits_sleep_for_a_doubling_pause(pair):
    ours, _ = pair
    counter = Counter(shared=True)
    poll = BusyPoll(ours, 0.001, switches=counter.switches, relax=counter.relax)
    polled = []
    for number in range(1, 12):
        before = counter.relaxed
        poll.wait()
        if counter.relaxed > before:
            polled.append(number)
    # pauses of 1, 2 and 4 waits after the first, second and third hand-over
    assert polled == [1, 3, 6, 11]
    assert poll.handed_over == 4
    assert poll.caught == 0


def test_the_pause_never_grows_past_its_limit(pair):
    ours, _ = pair
    counter = Counter(shared=True)
    poll = BusyPoll(ours, 0.0001, switches=counter.switches, relax=counter.relax)
    for _ in range(5 * MAX_PAUSE):
        poll.wait()
    assert poll.pause == MAX_PAUSE
    assert poll.rest <= MAX_PAUSE


def test_a_window_of_zero_never_polls(pair):
    ours, _ = pair
    counter = Counter()
    poll = BusyPoll(ours, 0, switches=counter.switches, relax=counter.relax)
    for _ in range(3):
        poll.wait()
    assert counter.relaxed == 0


def test_tls_sockets_are_never_polled(pair):
    ours, _ = pair
    wrapped = ssl.create_default_context().wrap_socket(ours, do_handshake_on_connect=False,
                                                       server_hostname="localhost")
    counter = Counter()
    poll = BusyPoll(wrapped, 1.0, switches=counter.switches, relax=counter.relax)
    poll.wait()
    assert poll.seconds == 0
    assert counter.relaxed == 0


def test_without_select_poll_a_reader_sleeps_at_once(pair, monkeypatch):
    ours, _ = pair
    monkeypatch.delattr(busypoll.select, "poll")
    counter = Counter()
    poll = BusyPoll(ours, 1.0, switches=counter.switches, relax=counter.relax)
    began = time.perf_counter()
    poll.wait()
    assert time.perf_counter() - began < 0.5
    assert (poll.seconds, counter.relaxed) == (0, 0)


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    busypoll.window.cache_clear()
    yield monkeypatch
    monkeypatch.delenv(busypoll.ENVIRONMENT, raising=False)
    busypoll.window.cache_clear()


def test_the_window_is_300_microseconds_unless_the_environment_says(environment):
    environment.delenv(busypoll.ENVIRONMENT, raising=False)
    assert busypoll.window() == pytest.approx(0.0003)
    busypoll.window.cache_clear()
    environment.setenv(busypoll.ENVIRONMENT, "0")
    assert busypoll.window() == 0
    busypoll.window.cache_clear()
    environment.setenv(busypoll.ENVIRONMENT, " 1500 ")
    assert busypoll.window() == pytest.approx(0.0015)


@pytest.mark.parametrize("value", ["abc", "-5", "1.5", "10001", "0x10"])
def test_a_window_that_is_not_whole_microseconds_in_range_is_a_usage_error(environment, value):
    environment.setenv(busypoll.ENVIRONMENT, value)
    with pytest.raises(TckError) as caught:
        busypoll.window()
    assert caught.value.code is ErrorCode.USAGE
    assert busypoll.ENVIRONMENT in caught.value.message
    assert "microseconds" in caught.value.message


def test_the_command_line_refuses_a_bad_window_before_it_starts(environment, capsys):
    environment.setenv(busypoll.ENVIRONMENT, "soon")
    assert main(["certify", "--target", "reference"]) == 2
    err = capsys.readouterr().err
    assert "SUBAGENT_TCK_POLL_US='soon'" in err
    assert "CERTIFIED" not in err
