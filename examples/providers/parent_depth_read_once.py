"""A parent's stored depth is read at its first start and cached (breaks DE-06).

A start derives the child's depth from the parent's stored header (docs/rules.md#DE-06: "a
stored delegationDepth outside the domain, whether in a session being resumed or in a parent's
header, is refused"). This runtime reads a parent's header once, at the first start from it,
and keeps the value: when the header is rewritten under the live parent afterwards (a corrupt
write, a hand edit, a newer runtime's header), its later starts go on from the cached depth and
a header outside the domain is never refused. A fresh agent, a resumed one and a parent's first
start read the header as they should: the checks, which rewrote headers only before a resume,
certified it.

ALSO_BREAKS DE-01: a header rewritten to another valid depth is not read either, so the next
child is one deeper than the cached depth, not than its parent's stored one (docs/rules.md#DE-01;
the campaign rewrites a live parent's header and starts from it again).
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import TckError, decide_start_depth, read_json_number

BREAKS = "DE-06"
ALSO_BREAKS = ("DE-01",)


class CachedDepthStart(ChildStart):
    def decide_depth(self) -> None:
        cache: dict[str, str] = self.host.__dict__.setdefault("depth_cache", {})
        header = self.host.store.header(self.parent.session)
        depth_json = cache.setdefault(self.parent.id, header.depth_json)  # the bug: read once
        try:
            stored: object = read_json_number(depth_json)
        except ValueError:
            stored = float("nan")
        decision = decide_start_depth(stored, self.parent.runtime_depth, self.asked["maxDepth"])
        if decision.child_depth is None:
            assert decision.code is not None
            raise TckError(decision.code, f"{decision.reason}; nothing was created")
        self.child_depth = decision.child_depth


def provider() -> Any:
    return reference_target("parent-depth-read-once", child_start_class=CachedDepthStart)
