"""The roster: roles, capability sets and tiers, and their load-time validation.

The roster is the single source of truth: the ``delegate`` tool's ``role`` enum, its routing
section and every start request are derived from it (docs/promises.md, "The worked example").
Validation (``validate``) runs at load: role ids unique, each tier and capability set exists,
batch roles get no tool at all, review and research roles get no write or execute tool, and,
when ``allowed_models`` is non-empty, no tier resolves to a model outside it. ``advisory`` mode
reports problems as warnings and loads anyway; ``strict`` refuses to load.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Mode = Literal["advisory", "strict"]

#: Tools that change the workspace or run code: never for review or research roles.
WRITE_OR_EXEC = frozenset({"write", "edit", "bash"})


@dataclass(frozen=True)
class Role:
    id: str
    kind: Literal["build", "review", "research", "batch", "plan"]
    capability: str
    tier: str
    prompt: str


#: The roster data, shared with the JavaScript roster (js/roster.mjs): one source of truth.
DATA_PATH = Path(__file__).with_name("roster.json")
_DATA = json.loads(DATA_PATH.read_text(encoding="utf-8"))

CAPABILITIES: dict[str, tuple[str, ...]] = {
    name: tuple(tools) for name, tools in _DATA["capabilities"].items()
}
TIERS: dict[str, dict[str, object]] = _DATA["tiers"]
ROLES: tuple[Role, ...] = tuple(Role(**role) for role in _DATA["roles"])


@dataclass(frozen=True)
class Roster:
    roles: tuple[Role, ...] = ROLES
    capabilities: Mapping[str, Sequence[str]] = field(default_factory=lambda: dict(CAPABILITIES))
    tiers: Mapping[str, Mapping[str, object]] = field(default_factory=lambda: dict(TIERS))
    allowed_models: tuple[str, ...] = ()

    def role(self, role_id: object) -> Role | None:
        return next((r for r in self.roles if r.id == role_id), None)

    def tools_of(self, role: Role) -> list[str]:
        return sorted(self.capabilities.get(role.capability, ()))

    def routing_section(self) -> str:
        """The ``## Delegation shapes`` section, generated (never describes a missing role)."""
        lines = ["## Delegation shapes", "Call `delegate` with one of these roles:"]
        lines += [f"- `{r.id}`: {r.prompt}" for r in self.roles]
        return "\n".join(lines)


class RosterError(ValueError):
    """A roster that ``strict`` mode refuses to load; ``problems`` lists every finding."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("roster refused: " + "; ".join(problems))
        self.problems = list(problems)


def problems_of(roster: Roster) -> list[str]:
    found: list[str] = []
    seen: set[str] = set()
    for role in roster.roles:
        if role.id in seen:
            found.append(f"role id {role.id!r} is used twice")
        seen.add(role.id)
        if role.tier not in roster.tiers:
            found.append(f"role {role.id!r}: tier {role.tier!r} does not exist")
        if role.capability not in roster.capabilities:
            found.append(f"role {role.id!r}: capability set {role.capability!r} does not exist")
            continue
        tools = set(roster.capabilities[role.capability])
        if role.kind == "batch" and tools:
            found.append(f"batch role {role.id!r} gets tools {sorted(tools)}; batch roles get "
                         "none")
        if role.kind in ("review", "research") and tools & WRITE_OR_EXEC:
            found.append(f"{role.kind} role {role.id!r} gets write/execute tools "
                         f"{sorted(tools & WRITE_OR_EXEC)}")
    if roster.allowed_models:
        for name, tier in roster.tiers.items():
            if tier.get("model") not in roster.allowed_models:
                found.append(f"tier {name!r} resolves to model {tier.get('model')!r}, outside "
                             f"allowed models {list(roster.allowed_models)}")
    return found


def validate(roster: Roster, mode: Mode = "advisory") -> list[str]:
    """Check the roster at load: ``advisory`` warns and returns the problems, ``strict``
    raises :class:`RosterError`."""
    if mode not in ("advisory", "strict"):
        raise ValueError(f"mode is 'advisory' or 'strict', not {mode!r}")
    found = problems_of(roster)
    if found and mode == "strict":
        raise RosterError(found)
    for problem in found:
        warnings.warn(f"roster: {problem}", stacklevel=2)
    return found
