"""The runtime processes a traffic adapter (traffic.py) runs for one deployment: each in a
process group of its own (killed whole on a timeout or an abort), still in the adapter's
session and carrying the kit's ``SUBAGENT_TCK_ADAPTER`` marker, so the kit's ``cmd:`` cleanup
finds whatever the runtime started (its MCP servers too: docs/driver-api.md, "Security and
processes").
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from subagent_tck.conformance.transports.processes import MARKER
from subagent_tck.conformance.transports.traffic import TrafficDeployment
from subagent_tck.conformance.transports.traffic_routes import R
from subagent_tck.spec import ErrorCode, StopReason, TckError


def setting_text(value: Any) -> str:
    """A kit depth value as a runtime's user writes its depth setting, an environment variable
    or a command-line option (Claude Code's CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH, Qwen Code's
    --max-subagent-depth): a number as JavaScript prints it (1.0 is "1", 2^53 is
    "9007199254740992") but ``-0`` as "-0", a string as it is, anything else as its JSON text.
    The runtime, not the adapter, decides what the text means (docs/claude-code.md "Depth",
    docs/qwen-code.md#depth)."""
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        return json.dumps(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value == 0 and math.copysign(1.0, value) < 0:
            return "-0"
        if value.is_integer():
            return str(int(value))
        return repr(value)
    return str(value)


def marked(env: dict[str, str]) -> dict[str, str]:
    """``env`` (changed in place) with the kit's marker, when the adapter carries one: the
    kit's cleanup finds the runtime by it."""
    if MARKER in os.environ:
        env[MARKER] = os.environ[MARKER]
    return env


def own_group() -> dict[str, Any]:
    """What :class:`subprocess.Popen` takes to start a process in a process group of its own,
    still in the adapter's session."""
    return {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}


def kill_group(process: subprocess.Popen[Any]) -> None:
    """``process`` and its process group, killed; the process alone when the group is gone."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        if process.poll() is None:
            process.kill()


def printed(done: subprocess.CompletedProcess[bytes]) -> Any:
    """The JSON a run printed on stdout; None when it printed none."""
    try:
        return json.loads(done.stdout)
    except ValueError:
        return None


def ended(done: subprocess.CompletedProcess[bytes],
          result: dict[str, Any] | None) -> tuple[StopReason, Any]:
    """How a turn ended, by the result object its run printed (``is_error``, ``result``: what
    Claude Code's and Qwen Code's JSON output carry): ERROR with the tail of its stderr when it
    printed none (the runtime ended before its answer)."""
    if result is None:
        return StopReason.ERROR, done.stderr.decode("utf-8", "replace")[-500:]
    return StopReason.ERROR if result.get("is_error") else StopReason.COMPLETED, \
        result.get("result")


class Runs:
    """The runtime processes running for one deployment, each with the MCP servers it was
    started with (the only ones it lists, for a runtime that reads them once)."""

    def __init__(self, what: str, variable: str, sweep: bool = False) -> None:
        self.what = what  # the command in messages: "codex exec"
        self.variable = variable  # the environment variable that sets the timeout
        #: whether what a finished run left behind in its group is killed (its MCP servers)
        self.sweep = sweep
        self._lock = threading.Lock()
        self._running: dict[subprocess.Popen[bytes], frozenset[str]] = {}

    def running(self) -> bool:
        with self._lock:
            return bool(self._running)

    def servers(self) -> frozenset[str]:
        """The MCP servers of every running process."""
        with self._lock:
            return frozenset().union(*self._running.values())

    def run(self, argv: list[str], cwd: Path, env: Mapping[str, str], timeout: float,
            prompt: bytes | None = None,
            servers: frozenset[str] = frozenset()) -> subprocess.CompletedProcess[bytes]:
        """``argv`` to its end, ``prompt`` on its standard input (else closed); TIMEOUT after
        ``timeout`` seconds, the process group killed."""
        process = subprocess.Popen(
            argv, cwd=cwd, env=env,
            stdin=subprocess.DEVNULL if prompt is None else subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **own_group())
        with self._lock:
            self._running[process] = servers
        try:
            out, err = process.communicate(prompt, timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(process)
            out, err = process.communicate()
            raise TckError(ErrorCode.TIMEOUT, f"{self.what} did not finish within "
                           f"{timeout:g} s ({self.variable}): "
                           f"{err.decode('utf-8', 'replace')[-500:]}") from None
        finally:
            with self._lock:
                self._running.pop(process, None)
            if self.sweep:
                kill_group(process)
        return subprocess.CompletedProcess(argv, process.returncode, out, err)

    def abort(self) -> None:
        """Every running process killed with its group."""
        with self._lock:
            running = list(self._running)
        for process in running:
            kill_group(process)


class RunsDeployment(TrafficDeployment[R]):
    """A traffic deployment whose runtime runs as processes of its own (``runs``): it listens
    to a changed tool list while one runs, and an aborted turn or closing it kills them all."""

    runs: Runs

    def _listening(self) -> bool:
        return self.runs.running()

    def abort_turn(self, agent: str) -> None:
        self.runs.abort()

    def close(self) -> None:
        self.runs.abort()
        super().close()
