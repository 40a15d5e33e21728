"""The global registry accepts a tool named ``run_code`` (breaks TF-06).

``run_code`` is reserved for code execution: no tool may register or shadow it. Here only
scope-local registration checks the name; a global plugin can register ``run_code`` and sit
beside (or, in native mode, in place of) the reserved transport. A registry whose reserved-name
check lives in one registration path but not the other does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ResolvedTool, Tool, ToolRegistry
from subagent_tck.spec import RUN_CODE, Origin

BREAKS = "TF-06"


class LaxRegistry(ToolRegistry):
    def register(self, tool: Tool) -> None:
        if isinstance(tool, Tool) and tool.name == RUN_CODE and RUN_CODE not in self:
            self._tools[RUN_CODE] = tool  # the bug: the reserved name is not checked here
            self._entries[RUN_CODE] = ResolvedTool(RUN_CODE, Origin.GLOBAL, tool)
            self._notify("registered", tool)
            return
        super().register(tool)


def provider() -> Any:
    return reference_target("run-code-registrable", registry_class=LaxRegistry)
