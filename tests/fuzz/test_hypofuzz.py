"""The campaign under HypoFuzz (``subagent-tck fuzz --engine hypofuzz``, docs/fuzz.md#hypofuzz):
a worker finds a seeded bug and saves it in a real Redis server, another process replays it
from there first; a worker that dies, a worker that hangs, a deployment that times out and a
Redis that goes away end the campaign with a clear error, what ran so far kept, and nothing
left running.

Each test starts a ``redis-server`` of its own (``.ci/run`` installs Debian's) on a free
loopback port with its own directory, and stops it after.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from .conftest import ROOT

#: A guard against a hang, not a goal: on an idle machine HypoFuzz's worker starts in a few
#: seconds and finds the entry within a minute.
BUDGET = 240
ENTRY = "case_insensitive_allow"  # was SUBTLE: only the fuzzer's read/Read found it once
SPEC = f"python:examples.providers.{ENTRY}:provider"
ENTRY_MODULE = importlib.import_module(f"examples.providers.{ENTRY}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Redis:
    """A redis-server of the test's own: loopback, a free port, its own directory."""

    def __init__(self, directory: Path) -> None:
        server = shutil.which("redis-server")
        assert server, "redis-server is missing: .ci/run installs it (apt-get install redis-server)"
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(directory),
             "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise AssertionError("redis-server did not answer PING within 20 s")

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(10)


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[Redis]:
    server = Redis(tmp_path)
    try:
        yield server
    finally:
        server.stop()


def fuzz(*args: str, timeout: float = BUDGET + 120,
         in_ci: bool = False) -> subprocess.CompletedProcess[str]:
    """The kit's fuzz command; ``in_ci``: with ``CI=true`` in its environment, as in a user's
    CI, where Hypothesis loads its own ``ci`` profile (derandomized, no database), and
    without it otherwise, whatever the environment running the tests has."""
    environment = {k: v for k, v in os.environ.items() if k != "CI"}
    if in_ci:
        environment["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "subagent_tck", "fuzz", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=environment)


def left_running(spec: str) -> list[str]:
    """Processes still running on behalf of a campaign against ``spec``: the hub, its
    workers (their environment names the target) and anything they started."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get("SUBAGENT_TCK_FUZZ_TARGET") == spec:
                found.append(" ".join(process.cmdline())[:200])
        except (psutil.Error, OSError):
            continue
    return found


def test_a_worker_finds_a_bug_that_another_process_replays_first_from_redis(
    redis: Redis, tmp_path: Path
) -> None:
    # in a CI environment: a worker whose profile followed Hypothesis's `ci` profile collected
    # no test (HypoFuzz skips derandomized tests) and died at once, in CI only
    found = fuzz("--engine", "hypofuzz", "--workers", "1", "--target", SPEC, "--database",
                 redis.url, "--budget", str(BUDGET), "--output-dir", str(tmp_path / "one"),
                 in_ci=True)
    assert found.returncode == 1, found.stdout + found.stderr
    # the seeded bug (an allow list matched without case) is TF-01's through a restriction,
    # TF-10's through a tool registered after it, another of the entry's rules where a view is
    # composed, and EN-03's through the subagent tool's configured filter (it reads as ignored
    # there): which the engine meets first is HypoFuzz's draw, unseeded (a CI run met TF-10)
    rules = "|".join(sorted({ENTRY_MODULE.BREAKS, *ENTRY_MODULE.ALSO_BREAKS, "EN-03"}))
    rule = re.search(rf"DIVERGENCE from the spec oracle: ({rules})\b", found.stdout)
    assert rule is not None, found.stdout
    replay_line = next(line for line in found.stdout.splitlines() if line.startswith("replay: "))
    assert not left_running(SPEC)
    # another process, in-process and seeded: one generated example alone finds nothing; with
    # the shared database it replays the worker's finding before anything else
    second = ["--target", SPEC, "--seed", "7", "--max-examples", "1", "--output-dir",
              str(tmp_path / "two")]
    alone = fuzz(*second, "--no-database")
    assert alone.returncode == 0, alone.stdout + alone.stderr
    shared = fuzz(*second, "--database", redis.url)
    assert shared.returncode == 1, shared.stdout + shared.stderr
    assert f"DIVERGENCE from the spec oracle: {rule[1]}" in shared.stdout, shared.stdout
    # and as the usual replay line
    again = fuzz(*replay_line.removeprefix("replay: subagent-tck fuzz ").split(" "))
    assert again.returncode == 1 and "the same divergence showed again" in again.stdout


def test_a_redis_that_goes_away_mid_campaign_ends_it_with_a_clear_error(redis: Redis) -> None:
    campaign = subprocess.Popen(
        [sys.executable, "-m", "subagent_tck", "fuzz", "--engine", "hypofuzz", "--workers", "1",
         "--target", "reference", "--database", redis.url, "--budget", str(BUDGET)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert campaign.stderr is not None
        for line in campaign.stderr:  # wait until the worker has run steps
            progress = re.match(r"fuzz: \d+s, \d+ worker\(s\), (\d+) steps", line)
            if progress and int(progress.group(1)) > 0:
                break
        began = time.monotonic()
        redis.stop()
        out, err = campaign.communicate(timeout=60)
    finally:
        campaign.kill()
    assert time.monotonic() - began < 60
    assert campaign.returncode == 3, out + err
    assert f"the example database {redis.url} stopped answering" in out
    assert "kept what ran until then: " in out and " steps" in out
    assert not left_running("reference")


@pytest.mark.parametrize(("factory", "said"), [
    ("dies", "died after"),
    ("hangs", "made no progress for"),
    ("times_out", "stopped: TIMEOUT: the target did not answer deploy"),
])
def test_a_worker_that_dies_hangs_or_times_out_ends_the_campaign_with_a_clear_error(
    redis: Redis, factory: str, said: str
) -> None:
    spec = f"python:tests.fuzz.worker_targets:{factory}"
    result = fuzz("--engine", "hypofuzz", "--workers", "1", "--target", spec, "--database",
                  redis.url, "--budget", str(BUDGET), "--stall-timeout", "5")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "error: worker pid " in result.stdout and said in result.stdout, result.stdout
    assert "kept what ran until then: " in result.stdout
    assert not left_running(spec)
