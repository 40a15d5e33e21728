"""A conforming target with permission rules in a grammar of its own (BREAKS None).

Runtimes people delegate with restrict their agents through permission rules that apply to
every agent of a session, and spell MCP entries their own way: Claude Code's ``mcp__{server}``
and ``mcp__{server}__*`` name every tool of a server, ``mcp__*`` every MCP tool. This target is
the reference with such rules (``examples/providers/_permissions.py``): it declares a
``permission`` restriction channel with those spellings (docs/driver-api.md#dialect), so the TF
checks put their restrictions through it too, stacked with a child's or the root's own (TF-02),
and draw entries in its grammar; the oracle expands each entry to the tools it matches.
"""

from __future__ import annotations

from typing import Any

from examples.providers._permissions import PermissionTarget

BREAKS = None


def provider() -> Any:
    return PermissionTarget(name="permission-rules")
