"""A conforming target whose permission rules follow declared variants of the catalogue's
grammar (BREAKS None).

The catalogue compares tool names exactly and takes allow minus deny (docs/rules.md#TF-01). A
runtime may document otherwise: entries that match names ignoring case, or an allow rule that
wins over a deny rule for the same tool. Declared (``caseInsensitive``, ``precedence:
allow-wins``, docs/driver-api.md#dialect), that is the runtime's dialect, not a failure: the
oracle judges its permission rules by it, and every report's dialect section names both
variants. The live, child and root channels keep the catalogue's grammar.
"""

from __future__ import annotations

from typing import Any

from examples.providers._permissions import MCP_FORMS, PermissionTarget
from subagent_tck.conformance.core.dialect import FilterGrammar

BREAKS = None


def provider() -> Any:
    target = PermissionTarget(name="permission-rules-variants")
    target.grammar = FilterGrammar(forms=MCP_FORMS, caseInsensitive=True,
                                   precedence="allow-wins")
    return target
