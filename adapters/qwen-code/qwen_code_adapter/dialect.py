"""What the Qwen Code adapter declares of Qwen Code's own terms (docs/driver-api.md#dialect,
docs/qwen-code.md "Dialect"), read from Qwen Code 0.24.4 and its wire.

- **Channels.** ``child``: a subagent definition's ``tools`` (allow) and ``disallowedTools``
  (deny) in ``.qwen/agents/NAME.md``. No ``live`` channel: an agent's tools are fixed when it
  starts.
- **Grammar.** Plain names only (the adapter spells the kit's ``NAME`` as ``mcp__tck__NAME``).
- **Frame.** Qwen Code appends its own text to a subagent's body in headless mode (its rules
  for a non-interactive agent, then the user context files: the output-language file it
  writes into ``~/.qwen``), and the context files to the root's ``--system-prompt``.
"""

from __future__ import annotations

from subagent_tck.conformance.core.dialect import (
    ChannelKind,
    FrameText,
    PromptFrame,
    RestrictionChannel,
)
from subagent_tck.conformance.core.protocol import TargetInfo

#: The output-language rule file Qwen Code 0.24.4 writes into ``~/.qwen`` at its first run
#: (``generateOutputLanguageFileContent("auto")``) and loads as a user context file.
OUTPUT_LANGUAGE = (
    "# Output language preference: auto\n<!-- qwen-code:llm-output-language: auto -->\n\n"
    "## Rule\nRespond in the same language as the user's input.\n\n## Exception\nIf the user "
    "**explicitly** requests a response in a specific language (e.g., \"please reply in "
    "English\"), switch to the user's requested language for the remainder of the "
    "conversation.\n\n## Mixed-language input\nIf the user mixes languages, use the language "
    "that best matches the user's main request.\n\n## Keep technical artifacts unchanged\nDo "
    "**not** translate or rewrite:\n- Code blocks, CLI commands, file paths, stack traces, logs, "
    "JSON keys, identifiers\n- Exact quoted text from the user (keep quotes verbatim)\n\n"
    "## Tool / system outputs\nRaw tool/system outputs may contain fixed-format English. "
    "Preserve them verbatim, and if needed, add a short explanation in the user's language "
    "below.")
_FILE = "../home/.qwen/output-language.md"  # as it names the file, from the project directory
#: assembleSystemPrompt: the base, then each context file between its header and footer
CONTEXT = (f"\n\n---\n\n--- Context from: {_FILE} ---\n{OUTPUT_LANGUAGE}\n"
           f"--- End of Context from: {_FILE} ---")
#: renderSubagentSystemPrompt: what a subagent's body gets in non-interactive mode
RULES = ("\n\nImportant Rules:\n - You operate in non-interactive mode: do not ask the user "
         "questions; proceed with available context.\n - Use tools only when necessary to "
         "obtain facts or make changes.\n - When the task is complete, return the final result "
         "as a normal model response (not a tool call) and stop.")

FRAME = PromptFrame(child=FrameText(after=RULES + CONTEXT), root=FrameText(after=CONTEXT))

CHANNELS = [
    RestrictionChannel(kind=ChannelKind.CHILD, via="a subagent definition's tools / "
                       "disallowedTools (.qwen/agents/NAME.md)"),
]


#: A section that guides a tool alone on its MCP server is that server's instructions, which
#: Qwen Code gives the model in a reminder of its own (docs/rules.md#TF-16).
GUIDANCE = "an MCP server's instructions, the guided tool alone on its server"


def declared(info: TargetInfo) -> TargetInfo:
    """``info`` with what the adapter declares."""
    return info.model_copy(update={"restrictionChannels": CHANNELS, "promptFrame": FRAME,
                                   "toolGuidance": GUIDANCE})
