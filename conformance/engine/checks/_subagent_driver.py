"""Shared machinery of the ST checks (``subagent_tool`` and ``subagent_tool_calls``).

The kit loads the tool bound to one provider, scripts a calling agent's model (by a marker in
its turn prompt) to call it with a child marker in the ``prompt`` argument, and scripts the child
by that marker. Verdicts come only from the driver protocol (views, schemas, lookups, published
agents, events, sessions, tool results of a turn) and from the gateway's record: the caller's
next request carries the tool result message (``isError``, ``content``) and ``context`` notices.

Wording (ST-03) is judged by cues, since each implementation words it its own way: a fresh
child's text must say the prompt stands alone or that the child does not see the
conversation (and must not claim it is seeded with it); a fork's text must say the child already
has the conversation or that the prompt states only what is new (and must not deny that it sees
it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagent_tck.spec import SUBAGENT_TOOL_NAME, Component, ErrorCode

from ...core.gateway import call, text
from ...core.protocol import (
    Message,
    ModelReply,
    ModelRequest,
    ProviderInfo,
    RunResult,
    SubagentToolConfig,
    ToolSchema,
)
from ...core.target import Deployment
from ..check import CheckContext
from ..partitions import Partition
from ._nonce import nonce

_FRESH = re.compile(
    r"stand-?alone|self-contained|(does not|doesn't|cannot|can't|will not|won't|never) see|"
    r"no access to|without access",
    re.I,
)
_FORK = re.compile(
    r"what is new|what's new|only (the )?new|new information|completed turns|seeded|"
    r"already (sees|has|knows)|sees (this|the) conversation|copy of (this|the) conversation",
    re.I,
)
_CLAIMS_SEEING = re.compile(
    r"seeded|completed turns|already sees|sees (this|the) conversation", re.I
)
#: Denying that the child sees *the conversation* (not, say, "the current in-flight turn",
#: which a fork's wording may rightly exclude).
_DENIES_SEEING = re.compile(
    r"((does not|doesn't|cannot|can't|will not|won't|never) see|no access to) "
    r"(this|the|your) (conversation|chat|history|context)", re.I
)
_PUBLISHED = "agent.published"
#: The toolName of a second load, next to the default ``subagent``.
SECONDARY = "subagent_second"


@dataclass
class Turn:
    """What one scripted turn of a calling agent showed."""

    result: RunResult
    requests: list[ModelRequest]
    tool_message: Message | None = None
    child_marker: str = ""
    child_agents: list[str] = field(default_factory=list)
    new_published: set[str] = field(default_factory=set)
    new_sessions: int = 0

    @property
    def content(self) -> str:
        return "" if self.tool_message is None else _text(self.tool_message.content)

    def has_code(self, code: ErrorCode) -> bool:
        return any(r.code == code.value for r in self.result.toolResults) or (
            code.value in self.content
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _published(dep: Deployment) -> set[str]:
    return {e.agent for e in dep.events() if e.kind == _PUBLISHED and e.agent}


class Driver:
    """Scripts and runs turns of the agents of one deployment."""

    def __init__(self, ctx: CheckContext, dep: Deployment) -> None:
        self.ctx, self.dep = ctx, dep
        self._callers: dict[str, str] = {}
        self._count = 0

    def marker(self, kind: str) -> str:
        self._count += 1
        return f"<<{kind}-{self._count}>>"

    def child(self, *replies: Any) -> tuple[str, dict[str, str]]:
        """Script a child; returns its marker and the arguments that start it. Without replies
        the child answers a per-case nonce (docs/rules.md: scripted text no target produces by
        echoing), scripted as optional so that a child that must not start leaves nothing
        unconsumed."""
        label = self.marker("child")
        if replies:
            marker = self.ctx.gateway.script(label, *replies)
        else:
            marker = self.ctx.gateway.script(label, text(f"child output {nonce(self.ctx, label)}"),
                                             required=False)
        return marker, {"description": "a delegated task", "prompt": f"{marker} do the task"}

    def delegate(
        self,
        agent: str,
        tool: str = SUBAGENT_TOOL_NAME,
        child: Sequence[Any] = (),
        before_call: Callable[[], None] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Turn:
        """A turn in which ``agent`` calls ``tool`` once to start a scripted child; after the
        tool result the caller gets the gateway's default reply and its turn ends. ``extra``
        are further arguments beside description and prompt (parameters the tool's schema
        offers, :mod:`._tool_arguments`)."""
        marker, arguments = self.child(*child)
        sent: dict[str, Any] = {**arguments, **(extra or {})}
        call_id = f"call-{self._count}"
        reply = call(tool, sent, call_id)
        if before_call is not None:
            hook = before_call

            def first(_: ModelRequest) -> ModelReply:
                hook()
                return reply

            return self.turn(agent, first, call_id=call_id, child=marker)
        return self.turn(agent, reply, call_id=call_id, child=marker)

    def turn(self, agent: str, *replies: Any, call_id: str = "", child: str = "") -> Turn:
        marker = self._callers.setdefault(agent, self.marker("caller"))
        self.ctx.gateway.script(marker, *replies)
        published, sessions = _published(self.dep), len(self.dep.sessions())
        seen = len(self.ctx.gateway.requests(agent))
        result = self.dep.run_turn(agent, f"{marker} go on")
        requests = self.ctx.gateway.requests(agent)[seen:]
        found = [
            m for r in requests for m in r.messages if m.role == "tool" and m.toolCallId == call_id
        ]
        return Turn(
            result,
            requests,
            found[0] if found and call_id else None,
            child,
            self.ctx.gateway.agents_for(child) if child else [],
            _published(self.dep) - published,
            len(self.dep.sessions()) - sessions,
        )


def load(ctx: CheckContext, dep: Deployment, rule: str, provider: str, **fields: Any) -> None:
    """Load the tool; a refusal fails ``rule`` and ends the check."""
    config = SubagentToolConfig(provider=provider, **fields)
    with ctx.step(rule, f"loading the subagent tool {fields or ''} bound to {provider!r}"):
        dep.load_subagent_tool(config)


def loader(dep: Deployment, config: SubagentToolConfig) -> Callable[[], None]:
    """A load as an action for :meth:`CheckContext.expect_error`."""
    return lambda: dep.load_subagent_tool(config)


def presence(dep: Deployment, agent: str, name: str) -> dict[str, bool]:
    """Where a tool named ``name`` can be seen: every answer must agree."""
    return {
        "global view": any(e.name == name for e in dep.view(None)),
        "agent view": any(e.name == name for e in dep.view(agent)),
        "wire schemas": any(s.name == name for s in dep.tool_schemas(agent)),
        "lookup": dep.lookup(agent, name) is not None,
    }


def schema_of(dep: Deployment, agent: str, name: str) -> ToolSchema | None:
    return next((s for s in dep.tool_schemas(agent) if s.name == name), None)


def wording_of(schema: ToolSchema) -> tuple[str, str]:
    """The tool's description and its ``prompt`` parameter's description."""
    props = schema.parameters.get("properties") or {}
    prompt = props.get("prompt") if isinstance(props, dict) else None
    prompt_text = prompt.get("description", "") if isinstance(prompt, dict) else ""
    return schema.description, prompt_text if isinstance(prompt_text, str) else ""


def wording_problems(text_: str, fork: bool) -> list[str]:
    """Why ``text_`` is not wording for a fork (``fork``) or a fresh child; empty if it is."""
    problems = []
    if fork:
        if not _FORK.search(text_):
            problems.append("does not say the child has the conversation / to state what is new")
        if _DENIES_SEEING.search(text_):
            problems.append("says the child does not see the conversation")
    else:
        if not _FRESH.search(text_):
            problems.append("does not say the prompt must stand alone")
        if _CLAIMS_SEEING.search(text_):
            problems.append("says the child is seeded with the conversation")
    return problems


def other_kind(ctx: CheckContext, provider: ProviderInfo) -> ProviderInfo | None:
    """A provider whose ``inheritsParentContext`` differs from ``provider``'s, if any."""
    return next(
        (p for p in ctx.providers if p.inheritsParentContext != provider.inheritsParentContext),
        None,
    )


def bound_provider(ctx: CheckContext) -> ProviderInfo:
    assert ctx.provider is not None, "ST checks run per provider"
    return ctx.provider


def ships_tool(ctx: CheckContext, rule: str, partitions: Iterable[Partition]) -> bool:
    """Whether the target ships the ``subagent`` tool; where it does not, ``rule`` is here for
    the provider's own delegation tool (planning.OWN_TOOL_RULES, the delegation_tool_*.py
    checks), and ``partitions`` of the configurable tool do not exist in this run."""
    if Component.SUBAGENT_TOOL in ctx.target.info().components:
        return True
    ctx.inapplicable(rule, *(p.name for p in partitions))
    return False


def expect_no_child(ctx: CheckContext, rule: str, turn: Turn, what: str) -> None:
    observed = {
        "child model requests": len(turn.child_agents),
        "agents published": sorted(turn.new_published),
        "sessions added": turn.new_sessions,
    }
    ctx.expect(
        rule,
        not turn.child_agents and not turn.new_published and turn.new_sessions == 0,
        f"{what}: no child may be created or published",
        {"child model requests": 0, "agents published": [], "sessions added": 0},
        observed,
    )


def expect_child_ran(ctx: CheckContext, rule: str, turn: Turn, what: str) -> bool:
    ok = turn.tool_message is not None and not turn.tool_message.isError and bool(
        turn.child_agents
    )
    ctx.expect(
        rule,
        ok,
        f"{what}: the call must start the child and give a result that is not an error",
        {"isError": False, "child ran": True},
        {
            "tool message": None if turn.tool_message is None else turn.tool_message.model_dump(),
            "child ran": bool(turn.child_agents),
        },
    )
    return ok


def expect_refused(ctx: CheckContext, rule: str, turn: Turn, what: str) -> None:
    message = turn.tool_message
    ctx.expect(
        rule,
        message is not None and message.isError,
        f"{what}: the caller's next request must carry an errored tool result",
        {"isError": True},
        None if message is None else message.model_dump(),
    )
    expect_no_child(ctx, rule, turn, what)
