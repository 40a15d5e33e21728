"""One ``codex exec`` of a deployment (docs/codex.md, "Running it"): the pinned Codex CLI
(``node_modules/.bin/codex``: `npm ci` in adapters/codex first), in the deployment's project
directory, with the deployment's ``CODEX_HOME`` and an isolated ``HOME``, standard input closed,
in a process group of its own (killed whole on a timeout or an abort), still in the adapter's
session and carrying the kit's ``SUBAGENT_TCK_ADAPTER`` marker, so the kit's ``cmd:`` cleanup
finds whatever it started (its MCP servers too).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from subagent_tck.conformance.transports import traffic_runs
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
    return traffic_runs.marked(env)  # the kit's marker: its cleanup finds codex


class Runs(traffic_runs.Runs):
    """The ``codex exec`` processes running for one deployment; what a run left behind in its
    group (its MCP servers) is killed when it ends."""

    def __init__(self, project: Path, home: Path, codex_home: Path) -> None:
        super().__init__("codex exec", "SUBAGENT_TCK_CODEX_TIMEOUT", sweep=True)
        self.project, self.env = project, environment(home, codex_home)

    def codex(self, prompt: str) -> subprocess.CompletedProcess[bytes]:
        """``codex exec PROMPT`` to its end (its root's last message on stdout); TIMEOUT after
        RUN_TIMEOUT seconds, the process group killed."""
        command = [str(CODEX), "exec", "--skip-git-repo-check", "--color", "never", prompt]
        return self.run(command, self.project, self.env, RUN_TIMEOUT)
