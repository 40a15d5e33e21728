"""One ``claude -p`` run as the adapter starts it: offline, in the deployment's project, in its
own process group (docs/claude-code.md "Robustness").

Every run has the adapter's model endpoint as ``ANTHROPIC_BASE_URL`` (on 127.0.0.1), an API key
that is no key, ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``, ``DISABLE_AUTOUPDATER=1``,
``CLAUDE_CODE_MAX_RETRIES=0``, its own ``HOME``; built-in tools limited to the delegation tool
(``--tools``), the kit's MCP servers only (``--mcp-config``, ``--strict-mcp-config``), each
allowed (``--allowedTools mcp__SERVER``), settings from the project only (its permission rules:
``.claude/settings.json``), ``--permission-mode acceptEdits`` (root may not bypass
permissions). A run that does not end within ``SUBAGENT_TCK_CLAUDE_TIMEOUT`` seconds (default
60) is killed with its group and ends with TIMEOUT.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subagent_tck.conformance.transports.traffic_runs import marked

from .install import Install

RUN_TIMEOUT = float(os.environ.get("SUBAGENT_TCK_CLAUDE_TIMEOUT", "60"))
#: Claude Code's depth setting (docs/claude-code.md "Depth"): read at each call of the
#: delegation tool from 2.1.217 on.
SETTING = "CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH"


@dataclass(frozen=True)
class Run:
    """What one run is given: its prompt, and either the root's system prompt or the agent
    definition the main thread runs as (``--agent``), and its depth setting's text (None:
    unset, Claude Code's default)."""

    prompt: str
    system: str | None = None
    agent: str | None = None
    setting: str | None = None


def command(claude: Install, run: Run, mcp_config: Path, servers: list[str],
            model: Any = None, strict: bool = True) -> list[str]:
    """The argv of ``run``; ``model``: the deployment's (``--model``, as the kit wrote it);
    ``strict``: the kit's MCP servers only (``--strict-mcp-config``) and the project's settings
    only; without it, also the servers an agent definition defines inline, which the flag
    skips, and the user's settings, where such a definition is (the run's home and project
    have no other server and no other setting)."""
    out = [*claude.command, "-p", run.prompt]
    if model is not None:
        out += ["--model", model if isinstance(model, str) else json.dumps(model)]
    if run.agent is not None:
        out += ["--agent", run.agent]
    if run.system is not None:
        out += ["--system-prompt", run.system]
    out += ["--tools", claude.tool, "--mcp-config", str(mcp_config)]
    if strict:
        out.append("--strict-mcp-config")
    for server in servers:
        out += ["--allowedTools", f"mcp__{server}"]
    # the user's settings hold the agent definitions with servers of their own (the run's
    # home has nothing else of the user's)
    return [*out, "--permission-mode", "acceptEdits", "--setting-sources",
            "project" if strict else "user,project", "--output-format", "json"]


def environment(home: Path, url: str, setting: str | None) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-subagent-tck-offline",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_MAX_RETRIES": "0", "NO_PROXY": "127.0.0.1,localhost",
           # every tool declared in full, none deferred behind a placeholder (2.1.332 may
           # declare MCP tools by name only, behind DeferredToolPlaceholder)
           "ENABLE_TOOL_SEARCH": "false",
           # every subagent in the foreground: its parent's call returns its answer (2.1.332
           # may launch one in the background and answer "Async agent launched")
           "CLAUDE_CODE_DISABLE_BACKGROUND_TASKS": "1"}
    marked(env)  # the kit's marker: its cleanup finds claude
    if setting is not None:
        env[SETTING] = setting
    return env


def mcp_config(commands: Mapping[str, list[str]]) -> str:
    """``--mcp-config``'s JSON: each server a stdio process."""
    return json.dumps({"mcpServers": {name: {"type": "stdio", "command": argv[0],
                                             "args": argv[1:]}
                                      for name, argv in commands.items()}})

