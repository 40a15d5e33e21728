#!/usr/bin/env python3
"""The Claude Code adapter for subagent-tck: the kit's driver API around the pinned Claude Code
CLI (package.json; `npm ci` here first). See docs/claude-code.md.

    python adapters/claude-code/server.py [--port N] [--model-timeout S] [--agents-dir DIR]

It is `subagent-tck serve` with the target claude_code_adapter.target:make_target; the first
stdout line is the handshake `SUBAGENT_TCK_READY http://127.0.0.1:PORT`. ``--agents-dir DIR``
puts the Claude Code agent definitions DIR/*.md into every deployment
(claude_code_adapter/agents_dir.py, docs/promises.md#claude-code).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from subagent_tck.conformance.transports.http_server import main


def _agents_dir(argv: list[str]) -> list[str]:
    """``argv`` without ``--agents-dir DIR`` (or ``--agents-dir=DIR``); DIR goes to the target
    through the environment (claude_code_adapter/agents_dir.py)."""
    rest: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--agents-dir" or arg.startswith("--agents-dir="):
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            if not value:
                sys.exit("error: --agents-dir needs a directory of Claude Code agent "
                         "definitions (NAME.md)")
            os.environ["SUBAGENT_TCK_CLAUDE_AGENTS_DIR"] = str(Path(value).resolve())
        else:
            rest.append(arg)
    return rest


if __name__ == "__main__":
    sys.exit(main(["--target", "python:claude_code_adapter.target:make_target",
                   *_agents_dir(sys.argv[1:])]))
