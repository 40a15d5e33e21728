"""A ``subagent`` tool that reads the host depth setting once, at load (breaks ST-06).

The default cap is copied when the tool is loaded, so later changes of the host's depth setting
never reach it. Caching configuration at start-up is the natural thing to do; for this setting
it means an operator cannot tighten or loosen delegation without reloading plugins.

ALSO_BREAKS ST-08: the at-cap notice is built from the cap the tool uses, which is stale.
"""

from __future__ import annotations

from examples.providers._parts import reference_target
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.subagent_tool import SubagentTool, SubagentToolConfig
from subagent_tck.spec import PROVIDER_MANAGED

BREAKS = "ST-06"
ALSO_BREAKS = ("ST-08",)


class CachedCapTool(SubagentTool):
    def __init__(self, host: Host, config: SubagentToolConfig) -> None:
        super().__init__(host, config)
        self._cached = host.host_depth

    def cap(self) -> int | None:
        if self.config.max_depth is None:
            return self._cached
        return None if self.config.max_depth == PROVIDER_MANAGED else super().cap()


def provider() -> ReferenceTarget:
    return reference_target("tool-ignores-live-depth", subagent_tool_class=CachedCapTool)
