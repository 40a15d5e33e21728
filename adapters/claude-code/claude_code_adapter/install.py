"""Which Claude Code the adapter runs: any published version from 2.1.19 on, from an install
folder (docs/claude-code.md, "Versions").

    python adapters/claude-code/server.py --claude-code DIR
    SUBAGENT_TCK_CLAUDE_CODE=DIR python adapters/claude-code/server.py

``DIR`` is a folder where ``npm install @anthropic-ai/claude-code@VERSION`` ran (its
``node_modules/@anthropic-ai/claude-code``), or that package folder itself; without one, the
version pinned in ``adapters/claude-code/package.json`` (``npm ci`` there). What differs between
versions, each read from that version's code (the npm package's JavaScript):

- **how it runs**: up to 2.1.112 the package ships ``cli.js`` (run with node); from 2.1.113 on a
  native binary ``bin/claude.exe``, which the package's postinstall copies from its platform
  package (before that copy, the file is a small placeholder script);
- **the delegation tool's name**: ``Task`` before 2.1.63 (``var v3="Task"``); from 2.1.63 on
  ``Agent``, with ``Task`` kept as an alias (``name:tq,aliases:[q51]``, ``tq="Agent"``);
- **delegation from a subagent**: before 2.1.172 the delegation tool is offered to the top-level
  session only; from 2.1.172 on a subagent is offered it below a depth cap,
  ``CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH`` (docs/claude-code.md, "Depth").
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from subagent_tck.spec import ErrorCode, TckError

ADAPTER = Path(__file__).resolve().parent.parent
PACKAGE = "@anthropic-ai/claude-code"
#: where the adapter reads the install folder from (set by server.py's ``--claude-code``)
ENV = "SUBAGENT_TCK_CLAUDE_CODE"
#: The oldest version the adapter runs (its flags: ``--tools``, ``--setting-sources``,
#: ``--strict-mcp-config``, ``--system-prompt`` in ``-p`` mode, ``disallowedTools`` in agent
#: definitions; all read in 2.1.19's cli.js).
OLDEST = (2, 1, 19)
#: From this version the delegation tool is ``Agent`` (``Task`` before).
AGENT_NAME = (2, 1, 63)
#: From this version a subagent may start subagents, up to CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH.
NESTING = (2, 1, 172)
#: A native binary starts with these bytes (ELF; Mach-O and PE are not run here).
_NATIVE = b"\x7fELF"


def parse_version(text: str) -> tuple[int, int, int]:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text.strip())
    if match is None:
        raise TckError(ErrorCode.USAGE,
                       f"{text!r} is not a Claude Code version (MAJOR.MINOR.PATCH)")
    return int(match[1]), int(match[2]), int(match[3])


@dataclass(frozen=True)
class Install:
    """One installed Claude Code: its folder, version and how to start it."""

    folder: Path  # the package folder (its package.json names @anthropic-ai/claude-code)
    version: str
    command: tuple[str, ...]  # what starts ``claude`` (a binary, or node and cli.js)

    @property
    def release(self) -> tuple[int, int, int]:
        return parse_version(self.version)

    @property
    def tool(self) -> str:
        """The delegation tool's name in this version."""
        return "Agent" if self.release >= AGENT_NAME else "Task"

    @property
    def nesting(self) -> bool:
        """Whether a subagent may start subagents in this version."""
        return self.release >= NESTING


def package_folder(directory: Path) -> Path:
    """``directory`` if it is the package's own folder, else its ``node_modules`` copy."""
    for candidate in (directory, directory / "node_modules" / PACKAGE):
        manifest = candidate / "package.json"
        try:
            name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
        except (OSError, ValueError):
            continue
        if name == PACKAGE:
            return candidate
    raise TckError(ErrorCode.USAGE, f"{str(directory)!r} holds no {PACKAGE}: give the folder where "
                   f"`npm install {PACKAGE}@VERSION` ran (or its node_modules/{PACKAGE})")


def _command(folder: Path, version: str) -> tuple[str, ...]:
    binary = folder / "bin" / "claude.exe"
    try:
        with binary.open("rb") as file:
            native = file.read(4) == _NATIVE
    except OSError:
        native = False
    if native:
        return (str(binary),)
    script = folder / "cli.js"
    if script.is_file():
        node = shutil.which("node")
        if node is None:
            raise TckError(ErrorCode.USAGE, f"Claude Code {version} is a node script ({script}): "
                           "put node (18 or later) on PATH")
        return (node, str(script))
    raise TckError(ErrorCode.USAGE, f"Claude Code {version} in {folder} has neither cli.js nor a "
                   "native bin/claude.exe: its postinstall (node install.cjs) did not run; run it "
                   f"there, or install again with `npm install {PACKAGE}@{version}`")


def find(directory: str | Path | None = None) -> Install:
    """The Claude Code in ``directory`` (default: the ``ENV`` variable, else the adapter's
    pinned install)."""
    given = directory if directory is not None else os.environ.get(ENV)
    if given:
        folder = package_folder(Path(given).expanduser().resolve())
    else:
        folder = ADAPTER / "node_modules" / PACKAGE
        if not (folder / "package.json").is_file():
            raise TckError(ErrorCode.USAGE, f"{folder} is missing: run `cd adapters/claude-code "
                           f"&& npm ci`, or give an install folder ({ENV} or --claude-code)")
    version = str(json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"])
    if parse_version(version) < OLDEST:
        raise TckError(ErrorCode.USAGE, f"Claude Code {version} is older than the adapter runs "
                       f"({'.'.join(map(str, OLDEST))}: its -p flags)")
    return Install(folder, version, _command(folder, version))
