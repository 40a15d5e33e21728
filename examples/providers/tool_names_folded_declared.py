"""A runtime that folds tool names together and declares it (breaks TF-01, and only TF-01).

opencode and Claude Code clean a tool's name for the model's wire: each character outside
``[A-Za-z0-9_-]`` becomes ``_``, so ``get_weatheré`` and ``get_weather_`` are one tool there.
This host does the same: a global registered under a name that folds like another's takes that
one's place. That breaks docs/rules.md#TF-01 (two names are kept apart byte for byte), and the
target declares it (``toolNameFolding``, docs/driver-api.md#dialect). The declaration excuses
nothing: TF-01's checks still draw such pairs and fail. What it buys is that no other rule
fails for TF-01's cause at a seed that happens to draw a pair (every other check, and the
campaign, draw around them): without it, opencode failed TF-11 at seed 1 and passed at seed 0.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.core.dialect import ToolNameFolding
from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host

BREAKS = "TF-01"

FOLDING = ToolNameFolding(keeps="A-Za-z0-9_-", via="a global's name cleaned for the wire")


class FoldingHost(Host):
    def register_tool(self, tool: Any, agent: str | None = None) -> None:
        if agent is None:
            for name in self.registry.names():
                # the bug: two names the catalogue keeps apart are one tool here
                if name != tool.name and FOLDING.fold(name) == FOLDING.fold(tool.name):
                    self.registry.unregister(name)
        super().register_tool(tool, agent)


class FoldingTarget(ReferenceTarget):
    #: whether the target declares its folding (tests certify it undeclared too)
    declares = True

    def info(self) -> TargetInfo:
        info = super().info()
        return info.model_copy(update={"toolNameFolding": FOLDING}) if self.declares else info


def provider() -> FoldingTarget:
    return FoldingTarget(host_class=FoldingHost, name="tool-names-folded-declared")
