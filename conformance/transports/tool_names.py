"""A runtime's spelling of the kit's tool names, read back (docs/driver-api.md#model-gateway).

A runtime that offers the kit's global tools through an MCP server renames them on the wire
(docs/opencode.md, docs/codex.md "Tool names"): each adapter knows its runtime's spelling; what a
wire name was in the kit's words is the same question for every one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def names_back(tools: Iterable[str], spell: Callable[[str], str]) -> dict[str, str]:
    """Wire name -> kit name for ``tools`` as ``spell`` writes them, leaving out a wire name two
    kit names share: a call of it cannot be told apart, so it reaches the kit under the wire
    name (a tool no check gave)."""
    seen: dict[str, list[str]] = {}
    for tool in tools:
        seen.setdefault(spell(tool), []).append(tool)
    return {wire: kits[0] for wire, kits in seen.items() if len(kits) == 1}
