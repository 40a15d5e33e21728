"""A directory of the user's own Claude Code agent definitions, put into every deployment.

    python adapters/claude-code/server.py --agents-dir DIR

Each ``DIR/*.md`` is a Claude Code agent definition (front matter with ``name``, ``description``
and optionally ``tools``, ``model``; the body is the agent's system prompt). It is copied as it
is into each fresh project's ``.claude/agents/``, with one line added at the end of its body:
the agent marker ``[subagent-tck agent=agent:NAME]`` the kit's gateway attributes the child's
requests by (and cuts before anything is compared). So a root turn whose model calls ``Agent``
with ``subagent_type = NAME`` starts the user's agent exactly as Claude Code defines it, and the
kit sees what that child gets (docs/promises.md#claude-code).

A definition the adapter cannot read (no front matter, no ``name``, two files with one name) is
refused when the adapter starts, naming the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.spec import ErrorCode, TckError

#: where the adapter reads the directory from (set by server.py's ``--agents-dir``)
ENV = "SUBAGENT_TCK_CLAUDE_AGENTS_DIR"
#: the agent id the adapter reports for the definition ``NAME``
PREFIX = "agent:"
_FRONT = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n?", re.S)
_NAME = re.compile(r"^name:\s*(.+?)\s*$", re.M)


@dataclass(frozen=True)
class Definition:
    name: str  # the name Claude Code knows it by (its subagent_type)
    text: str  # the file as written
    file: str  # its file name in the directory

    @property
    def agent(self) -> str:
        return PREFIX + self.name

    def with_marker(self) -> str:
        return self.text.rstrip("\n") + "\n\n" + agent_marker(self.agent) + "\n"


def load(directory: str | Path) -> list[Definition]:
    """The definitions in ``directory`` (``*.md``, sorted by file name)."""
    root = Path(directory)
    if not root.is_dir():
        raise TckError(ErrorCode.USAGE, f"--agents-dir {str(root)!r} is not a directory of "
                       "Claude Code agent definitions (NAME.md files)")
    found: dict[str, Path] = {}
    out: list[Definition] = []
    for path in sorted(root.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        front = _FRONT.match(text)
        name = _NAME.search(front.group(1)) if front else None
        if name is None:
            raise TckError(ErrorCode.USAGE, f"{path}: not a Claude Code agent definition: it "
                           "must open with front matter (---) holding `name: NAME`")
        value = name.group(1).strip("'\"")
        if value in found:
            raise TckError(ErrorCode.USAGE, f"{path}: the name {value!r} is also defined by "
                           f"{found[value]}")
        found[value] = path
        out.append(Definition(value, text, path.name))
    if not out:
        raise TckError(ErrorCode.USAGE, f"--agents-dir {str(root)!r} holds no *.md agent "
                       "definition")
    return out


def install(definitions: list[Definition], agents: Path) -> None:
    """Write each definition, marked, into a project's ``.claude/agents`` directory (under
    its own file name: the adapter's own definitions are named ``tck-*``)."""
    for definition in definitions:
        (agents / definition.file).write_text(definition.with_marker(),
                                                               encoding="utf-8")
