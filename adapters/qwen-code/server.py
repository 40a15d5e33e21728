#!/usr/bin/env python3
"""The Qwen Code adapter for subagent-tck: the kit's driver API around the pinned Qwen Code
(package.json; `npm ci` here first). See docs/qwen-code.md.

    python adapters/qwen-code/server.py [--port N] [--model-timeout S]

It is `subagent-tck serve` with the target qwen_code_adapter.target:make_target; the first
stdout line is the handshake `SUBAGENT_TCK_READY http://127.0.0.1:PORT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from subagent_tck.conformance.transports.http_server import main

if __name__ == "__main__":
    sys.exit(main(["--target", "python:qwen_code_adapter.target:make_target", *sys.argv[1:]]))
