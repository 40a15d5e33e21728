"""One ``codex exec`` of a deployment (docs/codex.md, "Running it"): the pinned Codex CLI
(``node_modules/.bin/codex``: `npm ci` in adapters/codex first), in the deployment's project
directory, with the deployment's ``CODEX_HOME`` and an isolated ``HOME``, standard input closed,
in a process group of its own (killed whole on a timeout or an abort), still in the adapter's
session and carrying the kit's ``SUBAGENT_TCK_ADAPTER`` marker, so the kit's ``cmd:`` cleanup
finds whatever it started (its MCP servers too).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from subagent_tck.spec import ErrorCode, TckError

from .config import KEY

HERE = Path(__file__).resolve().parent
CODEX = HERE.parent / "node_modules" / ".bin" / "codex"
#: How long one ``codex exec`` may run, in seconds.
RUN_TIMEOUT = float(os.environ.get("SUBAGENT_TCK_CODEX_TIMEOUT", "60"))


def missing() -> TckError | None:
    """The usage error when the pinned Codex is not installed."""
    if CODEX.exists():
        return None
    return TckError(ErrorCode.USAGE, f"{CODEX} is missing: run `cd adapters/codex && npm ci`")


def environment(home: Path, codex_home: Path) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "CODEX_HOME": str(codex_home), KEY: "sk-subagent-tck-offline", "TERM": "dumb",
           "NO_PROXY": "127.0.0.1,localhost", "RUST_LOG": "error"}
    if "SUBAGENT_TCK_ADAPTER" in os.environ:  # the kit's marker: its cleanup finds codex
        env["SUBAGENT_TCK_ADAPTER"] = os.environ["SUBAGENT_TCK_ADAPTER"]
    return env


class Runs:
    """The ``codex exec`` processes running for one deployment."""

    def __init__(self, project: Path, home: Path, codex_home: Path) -> None:
        self.project, self.env = project, environment(home, codex_home)
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()

    def running(self) -> bool:
        with self._lock:
            return bool(self._running)

    def run(self, prompt: str) -> subprocess.CompletedProcess[bytes]:
        """``codex exec PROMPT`` to its end (its root's last message on stdout); TIMEOUT after
        RUN_TIMEOUT seconds, the process group killed."""
        command = [str(CODEX), "exec", "--skip-git-repo-check", "--color", "never", prompt]
        group: dict[str, Any] = ({"process_group": 0} if sys.version_info >= (3, 11)
                                 else {"preexec_fn": os.setpgrp})
        process = subprocess.Popen(command, cwd=self.project, env=self.env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, **group)
        with self._lock:
            self._running.add(process)
        try:
            out, err = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            _kill(process)
            out, err = process.communicate()
            raise TckError(ErrorCode.TIMEOUT, f"codex exec did not finish within "
                           f"{RUN_TIMEOUT:g} s (SUBAGENT_TCK_CODEX_TIMEOUT): "
                           f"{err.decode('utf-8', 'replace')[-500:]}") from None
        finally:
            with self._lock:
                self._running.discard(process)
            _kill(process)  # what the run left behind in its group (its MCP servers)
        return subprocess.CompletedProcess(command, process.returncode, out, err)

    def abort(self) -> None:
        with self._lock:
            running = list(self._running)
        for process in running:
            _kill(process)


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        if process.poll() is None:
            process.kill()
