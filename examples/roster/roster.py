"""The roster: roles, capability sets and tiers, and their load-time validation.

The roster is the single source of truth: the ``delegate`` tool's ``role`` enum, its routing
section and every start request are derived from it (docs/promises.md, "The worked example").
Validation (``validate``) runs at load: role ids unique, each tier and capability set exists,
batch roles get no tool at all, review and research roles get no write or execute tool, and,
when ``allowed_models`` is non-empty, no tier resolves to a model outside it. ``advisory`` mode
reports problems as warnings and loads anyway; ``strict`` refuses to load.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["advisory", "strict"]

#: Tools that change the workspace or run code: never for review or research roles.
WRITE_OR_EXEC = frozenset({"write", "edit", "bash"})

CAPABILITIES: dict[str, tuple[str, ...]] = {
    "workspace": ("read", "grep", "glob", "edit", "write", "bash"),
    "read-only": ("read", "grep", "glob"),
    "research": ("read", "grep", "glob", "web_fetch"),
    "docs": ("read", "grep", "glob", "edit", "write"),
    "verify": ("read", "grep", "glob", "bash"),
    "none": (),
}

TIERS: dict[str, dict[str, object]] = {
    "deep": {"model": "large", "maxTokens": 16000},
    "standard": {"model": "medium", "maxTokens": 8000},
    "fast": {"model": "small", "maxTokens": 2000},
}


@dataclass(frozen=True)
class Role:
    id: str
    kind: Literal["build", "review", "research", "batch", "plan"]
    capability: str
    tier: str
    prompt: str


def _role(id: str, kind: Literal["build", "review", "research", "batch", "plan"],
          capability: str, tier: str, identity: str, contract: str) -> Role:
    return Role(id, kind, capability, tier, f"You are the {identity}. {contract}")


ROLES: tuple[Role, ...] = (
    _role("implementer", "build", "workspace", "deep", "roster implementer",
          "Make the change asked for, run the tests, and report the diff."),
    _role("refactorer", "build", "workspace", "standard", "roster refactorer",
          "Restructure without changing behaviour; report what moved."),
    _role("tester", "build", "verify", "standard", "roster tester",
          "Run the tests named in the task and report failures verbatim."),
    _role("debugger", "build", "verify", "deep", "roster debugger",
          "Find the cause of the failure and report it with evidence."),
    _role("doc-writer", "build", "docs", "standard", "roster doc writer",
          "Write or update the documentation asked for."),
    _role("reviewer-strict", "review", "read-only", "deep", "roster strict reviewer",
          "Review the change; list every defect with file and line. Do not edit."),
    _role("reviewer-lenient", "review", "read-only", "standard", "roster lenient reviewer",
          "Review the change; list blocking defects only."),
    _role("security-reviewer", "review", "read-only", "deep", "roster security reviewer",
          "Review for security defects only."),
    _role("researcher", "research", "research", "standard", "roster researcher",
          "Answer the question with sources."),
    _role("planner", "plan", "read-only", "deep", "roster planner",
          "Write a step-by-step plan; change nothing."),
    _role("batch-summarizer", "batch", "none", "fast", "roster batch summarizer",
          "Summarise the text given in the task in three lines."),
    _role("batch-classifier", "batch", "none", "fast", "roster batch classifier",
          "Answer with one label from the task's list."),
)


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
