"""The ``delegate`` tool: the model picks a ``role``; the roster turns it into a start request.

The role enum is routing, not a hint: ``request_for`` sends the role's persona, its capability
set as ``toolFilter.allow`` and ``maxDepth: 1`` with every start (request-controls edition).
The reference's start request has no ``agentOptions``, so the role's tier is reported in the
tool result, not sent (docs/promises.md, "What the wire shows").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck import reference as ref
from subagent_tck.spec import ErrorCode, TckError

from .roster import Mode, Role, Roster, validate

TOOL_NAME = "delegate"


class RosterDelegate:
    """One loaded roster. Subclass ``request_for`` to change what a role's child gets."""

    provider = "spawn"
    max_depth: int | None = 1

    def __init__(self, roster: Roster, mode: Mode = "advisory") -> None:
        self.problems = validate(roster, mode)
        self.roster = roster

    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "role": {"type": "string", "enum": [r.id for r in self.roster.roles]},
                "task": {"type": "string", "description": "The whole task for the child."},
            },
            "required": ["role", "task"],
            "additionalProperties": False,
        }

    def request_for(self, role: Role, task: str) -> dict[str, Any]:
        request: dict[str, Any] = {
            "provider": self.provider,
            "prompt": task,
            "persona": role.prompt,
            "toolFilter": {"allow": self.roster.tools_of(role)},
        }
        if self.max_depth is not None:
            request["maxDepth"] = self.max_depth
        return request

    def body(self, arguments: Mapping[str, Any], context: ref.ExecutionContext) -> Any:
        role = self.roster.role(arguments.get("role"))
        task = arguments.get("task")
        if role is None:
            raise TckError(ErrorCode.INVALID_REQUEST, "role must be one of "
                           + ", ".join(r.id for r in self.roster.roles))
        if not isinstance(task, str) or not task.strip():
            raise TckError(ErrorCode.INVALID_REQUEST, "task must be a non-empty string")
        run = context.host.start(context.agent, self.request_for(role, task))
        context.signal.on_abort(run.cancel)
        try:
            result = run.result()
        finally:
            run.dispose()
        if result.stop_reason.value != "completed":
            return ref.ToolResult.error(None, f"the {role.id} child stopped with "
                                        f"{result.stop_reason.value!r}")
        return {"role": role.id, "tier": role.tier, "output": result.output}

    def tool(self) -> ref.Tool:
        return ref.Tool(TOOL_NAME, self.body, "Delegate a task to a child agent in one of the "
                        "roster's roles.\n\n" + self.roster.routing_section(), self.parameters())

    def install(self, host: ref.Host) -> None:
        host.register_tool(self.tool())
