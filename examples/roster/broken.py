"""Broken rosters, each breaking one promise of ``promises.toml`` (loaded in ``advisory`` mode,
which warns and loads anyway: exactly what the promises check is there to catch).

``--target python:examples.roster.broken:NAME`` for NAME in :data:`VARIANTS`; each maps to the
role whose promise it breaks and the aspect that must fail.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

from .delegate import RosterDelegate
from .roster import ROLES, Role, Roster
from .target import RosterTarget

PARENT_PERSONA = "You are the orchestrator of this workspace; you decide who does what."


def _roster(role_id: str, **change: Any) -> Roster:
    return Roster(roles=tuple(dataclasses.replace(r, **change) if r.id == role_id else r
                              for r in ROLES))


def _quiet(make: Any) -> Any:
    def build() -> RosterDelegate:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            delegate: RosterDelegate = make()
            return delegate
    return build


class _LeakingDelegate(RosterDelegate):
    """Prefixes the parent's persona to the planner's (a plugin that "inherits" identity)."""

    def request_for(self, role: Role, task: str) -> dict[str, Any]:
        request = super().request_for(role, task)
        if role.id == "planner":
            request["persona"] = PARENT_PERSONA + "\n" + role.prompt
        return request


class _RedelegatingDelegate(RosterDelegate):
    """The researcher's child keeps ``delegate`` and gets no depth cap."""

    def request_for(self, role: Role, task: str) -> dict[str, Any]:
        request = super().request_for(role, task)
        if role.id == "researcher":
            request["toolFilter"] = {"allow": [*self.roster.tools_of(role), "delegate"]}
            request.pop("maxDepth", None)
        return request


def review_gets_write() -> RosterTarget:
    return RosterTarget(_quiet(lambda: RosterDelegate(
        _roster("reviewer-strict", capability="workspace"), "advisory")))


def batch_gets_tools() -> RosterTarget:
    return RosterTarget(_quiet(lambda: RosterDelegate(
        _roster("batch-summarizer", capability="read-only"), "advisory")))


def persona_leaks() -> RosterTarget:
    return RosterTarget(lambda: _LeakingDelegate(Roster(), "strict"))


def delegates_again() -> RosterTarget:
    return RosterTarget(lambda: _RedelegatingDelegate(Roster(), "strict"))


#: variant -> (the role named in the failure, the aspects that must fail for it)
VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "review_gets_write": ("reviewer-strict", ("tools", "refuses:calls")),
    "batch_gets_tools": ("batch-summarizer", ("tools", "refuses:calls")),
    "persona_leaks": ("planner", ("persona",)),
    "delegates_again": ("researcher", ("tools", "refuses:delegation")),
}
