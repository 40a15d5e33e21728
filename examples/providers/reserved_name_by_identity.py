"""The reserved name is recognised by identity, not by value (breaks TF-06).

``tool.name is RUN_CODE`` instead of ``==`` in the check every registration shares: a Python
runtime whose tests register ``run_code`` with the very constant it compares against refuses it,
but a name read off a wire or from a configuration file is a new string, so a global and a
scope-local tool named ``run_code`` are registered beside the reserved one. In-process the kit
hands the target equal copies of its names for the same reason (found by the mutation benchmark:
``tool.py:129``, benchmarks/README.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ResolvedTool, Scope, Tool, ToolRegistry
from subagent_tck.spec import RUN_CODE, ErrorCode, Origin, TckError

BREAKS = "TF-06"


def validate_by_identity(tool: object) -> Tool:
    """The reference's ``validate_tool``, with the reserved name compared by identity."""
    if not isinstance(tool, Tool) or not isinstance(tool.name, str) or not tool.name:
        raise TckError(ErrorCode.INVALID_REQUEST, "register a Tool with a non-empty name")
    if not callable(tool.body) or not isinstance(tool.parameters, Mapping) \
            or not isinstance(tool.description, str):
        raise TckError(ErrorCode.INVALID_REQUEST, f"tool {tool.name!r} is malformed")
    if tool.name is RUN_CODE:  # the bug: `is` for `==`
        raise TckError(ErrorCode.RESERVED_NAME, f"{RUN_CODE!r} is reserved (TF-06)")
    return tool


class IdentityRegistry(ToolRegistry):
    def register(self, tool: Tool) -> None:
        validate_by_identity(tool)
        if tool.name in self._tools:
            raise TckError(ErrorCode.DUPLICATE_TOOL, f"{tool.name!r} is already registered")
        self._tools[tool.name] = tool
        self._entries[tool.name] = ResolvedTool(tool.name, Origin.GLOBAL, tool)
        self._notify("registered", tool)


class IdentityScope(Scope):
    def add_local(self, tool: Tool) -> None:
        validate_by_identity(tool)
        if tool.name in self._locals:
            raise TckError(ErrorCode.DUPLICATE_TOOL, f"{tool.name!r} is already local here")
        self._locals[tool.name] = ResolvedTool(tool.name, Origin.LOCAL, tool)


def provider() -> ReferenceTarget:
    return reference_target("reserved-name-by-identity",
                            scope_class=IdentityScope, registry_class=IdentityRegistry)
