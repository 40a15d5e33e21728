#!/usr/bin/env python3
"""The Claude Code adapter for subagent-tck: the kit's driver API around the pinned Claude Code
CLI (package.json; `npm ci` here first). See docs/claude-code.md.

    python adapters/claude-code/server.py [--port N] [--model-timeout S] [--agents-dir DIR]
                                          [--claude-code DIR]

It is `subagent-tck serve` with the target claude_code_adapter.target:make_target; the first
stdout line is the handshake `SUBAGENT_TCK_READY http://127.0.0.1:PORT`. ``--agents-dir DIR``
puts the Claude Code agent definitions DIR/*.md into every deployment
(claude_code_adapter/agents_dir.py, docs/promises.md#claude-code). ``--claude-code DIR`` runs
the Claude Code installed in DIR (any published version from 2.1.19 on: where
`npm install @anthropic-ai/claude-code@VERSION` ran) instead of the pinned one
(claude_code_adapter/install.py, docs/claude-code.md#versions).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from subagent_tck.conformance.transports.http_server import main

#: The adapter's own options: each takes a directory, which goes to the target through the
#: environment variable named here, and what the error says when it is missing.
OPTIONS = {
    "--agents-dir": ("SUBAGENT_TCK_CLAUDE_AGENTS_DIR",
                     "a directory of Claude Code agent definitions (NAME.md)"),
    "--claude-code": ("SUBAGENT_TCK_CLAUDE_CODE",
                      "the folder where `npm install @anthropic-ai/claude-code@VERSION` ran"),
}


def _own_options(argv: list[str]) -> list[str]:
    """``argv`` without the adapter's own options (``--agents-dir DIR``, ``--claude-code DIR``,
    or ``--NAME=DIR``); each DIR goes to the target through the environment
    (claude_code_adapter/agents_dir.py, claude_code_adapter/install.py)."""
    rest: list[str] = []
    args = iter(argv)
    for arg in args:
        option = arg.partition("=")[0]
        if option in OPTIONS:
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            if not value:
                sys.exit(f"error: {option} needs {OPTIONS[option][1]}")
            os.environ[OPTIONS[option][0]] = str(Path(value).resolve())
        else:
            rest.append(arg)
    return rest


if __name__ == "__main__":
    sys.exit(main(["--target", "python:claude_code_adapter.target:make_target",
                   *_own_options(sys.argv[1:])]))
