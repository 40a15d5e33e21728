"""What the Claude Code adapter declares of Claude Code's own terms (docs/driver-api.md#dialect,
docs/claude-code.md "Dialect"): where a restriction can be put, how an entry may be spelled, and
the text Claude Code puts around an agent's system prompt. Each is read from Claude Code's code
(the pinned version's, 2.1.332; earlier versions where they differ are named).

- **Channels.** ``child``: a subagent's definition (``tools`` = allow, ``disallowedTools`` =
  deny); ``root``: the main thread run as an agent definition (``--agent NAME``, its ``tools``
  and ``disallowedTools`` on the top-level session); ``permission``: the project's permission
  rules, of which only ``permissions.deny`` hides a tool from every agent (an allow rule
  approves calls without asking and hides nothing), so the channel carries deny lists alone.
  There is no ``live`` channel: an agent's tools are fixed when it starts.
- **Grammar.** Besides a tool's own name (the adapter spells the kit's ``NAME`` as
  ``mcp__SERVER__NAME``): ``mcp__{server}`` and ``mcp__{server}__*`` name every tool of a server
  (the definition's ``tools`` resolution takes both as server-level, NF in 2.1.332's code; the
  deny side, aEt, reads a tool-less ``mcp__SERVER`` and ``mcp__SERVER__*`` as server-level),
  ``mcp__*`` every MCP tool (aEt's ``serverName === "*"``), ``mcp__{server}__{tool}`` a tool
  by its full name. Names match exactly (case-sensitive), and deny wins over allow: the
  catalogue's own rules, so no variant is declared.
- **Frame.** A child's system text is Claude Code's header lines, then the definition's body,
  then its "Notes" for agent threads; the root's, the header lines, then ``--system-prompt``
  (or the ``--agent`` definition's body): frames.py holds them, as recorded from the wire.
"""

from __future__ import annotations

from subagent_tck.conformance.core.dialect import (
    ChannelKind,
    EntryForm,
    EntryMeaning,
    FilterGrammar,
    RestrictionChannel,
    ToolNameFolding,
)
from subagent_tck.conformance.core.protocol import TargetInfo

from . import frames
from .install import Install

GRAMMAR = FilterGrammar(forms=[
    EntryForm(spelling="mcp__{server}", meaning=EntryMeaning.SERVER),
    EntryForm(spelling="mcp__{server}__*", meaning=EntryMeaning.SERVER),
    EntryForm(spelling="mcp__*", meaning=EntryMeaning.ALL),
    EntryForm(spelling="mcp__{server}__{tool}", meaning=EntryMeaning.TOOL),
])


def channels(claude: Install) -> list[RestrictionChannel]:
    return [
        RestrictionChannel(kind=ChannelKind.CHILD, grammar=GRAMMAR,
                           via="a subagent's definition, tools / disallowedTools"),
        RestrictionChannel(kind=ChannelKind.ROOT, grammar=GRAMMAR,
                           via="the main thread run as a definition (--agent NAME), tools / "
                               "disallowedTools"),
        RestrictionChannel(kind=ChannelKind.PERMISSION, lists=["deny"], grammar=GRAMMAR,
                           via="the project's permission rules, permissions.deny in "
                               ".claude/settings.json"),
    ]


#: Claude Code names an MCP tool ``mcp__SERVER__NAME``, ``NAME`` in NFKC form with every
#: character outside ``[A-Za-z0-9_-]`` (per UTF-16 unit) replaced by ``_`` (target._wire_name):
#: two names the kit keeps apart can be one tool, TF-01's to judge (docs/claude-code.md).
FOLDING = ToolNameFolding(keeps="A-Za-z0-9_-", utf16=True, normalization="NFKC",
                          via="Claude Code names an MCP tool mcp__SERVER__NAME, NAME cleaned so")


#: A section that guides a tool alone on its MCP server is that server's instructions, which
#: Claude Code gives the model itself (in 2.1.332 in a message headed "MCP Server Instructions").
GUIDANCE = "an MCP server's instructions, the guided tool alone on its server"


#: A preset's own tools are its definition's own MCP server, defined inline (front matter
#: ``mcpServers``), in the user's agent folder: read and seen on 2.1.332, not declared for the
#: versions before it, whose code was not read for it (docs/claude-code.md#own-tools).
PRESET_TOOLS = ("a definition's own MCP server, defined inline (mcpServers) in the user's "
                "agent folder")
PRESET_TOOLS_SINCE = (2, 1, 332)


def declared(info: TargetInfo, claude: Install) -> TargetInfo:
    """``info`` with what the adapter declares for the Claude Code it runs."""
    return info.model_copy(update={
        "restrictionChannels": channels(claude), "promptFrame": frames.frame(claude),
        "toolNameFolding": FOLDING, "toolGuidance": GUIDANCE,
        "presetTools": PRESET_TOOLS if claude.release >= PRESET_TOOLS_SINCE else None})
