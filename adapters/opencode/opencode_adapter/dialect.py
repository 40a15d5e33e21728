"""What the opencode adapter declares of opencode's own terms (docs/driver-api.md#dialect,
docs/opencode.md "Dialect"), read from opencode 1.18.33 and its wire.

- **Channels.** ``child``: a subagent's permission rules (an allow list as ``"*": deny`` then
  each tool ``allow``; each denied tool ``deny``: opencode's last matching rule wins); ``root``:
  the root agent ``build``'s own permission rules and prompt (``agent.build`` in opencode.json),
  from the preset the root is started from; ``permission``: opencode.json's own ``permission``
  rules, every agent's, of which the adapter writes deny rules only (a deployment-wide allow
  list would be one ordered list the adapter merged itself). No ``live`` channel: an agent's
  rules are read when it starts.
- **Grammar.** Plain names only (the adapter spells the kit's ``NAME`` as ``SERVER_NAME``): the
  wildcard patterns opencode's rules take are not declared yet.
- **Tool names.** opencode names a tool of an MCP server ``SERVER_NAME`` with every character
  of ``NAME`` outside ``[A-Za-z0-9_-]`` (per UTF-16 unit) replaced by ``_`` (proxy.wire_name),
  so two names the kit keeps apart can be one tool: declared, so that only TF-01's checks draw
  such pairs (docs/opencode.md#tool-names).
- **Guidance.** An MCP server's instructions, in the ``<mcp_instructions>`` block of the
  system text, kept (1.18.33) only while the agent's rules leave one of that server's tools.
- **Frame.** opencode appends its own text to an agent's prompt, a child's and the root's
  alike: the model line and an ``<env>`` block (working directory, workspace, git, platform,
  date: each a run within its line).
"""

from __future__ import annotations

from subagent_tck.conformance.core.dialect import (
    ChannelKind,
    FrameText,
    PromptFrame,
    RestrictionChannel,
    ToolNameFolding,
)
from subagent_tck.conformance.core.protocol import TargetInfo

_AFTER = ("\nYou are powered by the model named {*}. The exact model ID is {*}\n"
          "Here is some useful information about the environment you are running in:\n"
          "<env>\n  Working directory: {*}\n  Workspace root folder: {*}\n"
          "  Is directory a git repo: {*}\n  Platform: {*}\n  Today's date: {*}\n</env>")

FRAME = PromptFrame(child=FrameText(after=_AFTER), root=FrameText(after=_AFTER))

CHANNELS = [
    RestrictionChannel(kind=ChannelKind.CHILD, via="a subagent's permission rules "
                       "(.opencode/agent/NAME.md, permission)"),
    RestrictionChannel(kind=ChannelKind.ROOT, via="the root agent's own permission rules "
                       "(opencode.json agent.build.permission)"),
    RestrictionChannel(kind=ChannelKind.PERMISSION, lists=["deny"],
                       via="opencode.json's permission rules, deny"),
]


FOLDING = ToolNameFolding(keeps="A-Za-z0-9_-", utf16=True,
                          via="opencode names an MCP tool SERVER_NAME, NAME cleaned so")


#: A section that guides a tool alone on its MCP server is that server's instructions, which
#: opencode puts in an agent's ``<mcp_instructions>`` block (docs/rules.md#TF-16).
GUIDANCE = "an MCP server's instructions, the guided tool alone on its server"


def declared(info: TargetInfo) -> TargetInfo:
    """``info`` with what the adapter declares."""
    return info.model_copy(update={"restrictionChannels": CHANNELS, "promptFrame": FRAME,
                                   "toolNameFolding": FOLDING, "toolGuidance": GUIDANCE})
