"""How an adapter that sees a runtime only from its model traffic starts a child, at any depth
(docs/claude-code.md "Delegation from a child", docs/opencode.md): the records of
:class:`~subagent_tck.conformance.transports.traffic.TrafficDeployment`.

A runtime such as Claude Code runs a subagent only inside its parent's call of the delegation
tool, within one run of the runtime. So the kit's ``start`` from a parent at depth ``d`` is one
run whose parents the adapter plays (its start driver): the run's top-level session calls the
tool with the first of the parent's ancestors, that agent calls it with the next, and so on
down to the parent, whose call starts the new child. Each ancestor in that chain (a **link**)
is written from the same definition as the kit's child it stands for (its persona, its tool
filter: what decides whether it is offered the tool, and whether it may use it at its depth),
with a start marker ``[subagent-tck start=sN-K]`` instead of the child's agent marker, so its
requests are answered by the driver and never reach the kit. The new child's requests carry its
own agent marker and go to the kit, as a child of the root's do.

A child is **published** when its first request reaches the adapter (nothing of it is observable
before: docs/rules.md#fr-02), with that request's tools and system text as its snapshot; a
start whose child never asked its model was refused by the runtime, and nothing of it is
published (docs/rules.md#de-04, docs/rules.md#fr-03).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from subagent_tck.conformance.core.protocol import (
    Message,
    ModelReply,
    ModelRequest,
    SessionHeader,
    ToolCall,
    ToolResult,
)
from subagent_tck.spec import ErrorCode, TckError

_TOKEN = re.compile(r"s(\d+)(?:-(\d+))?")


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


#: A depth setting left unset: the runtime's default applies.
UNSET: Any = _Unset()


#: A start marker in a request's text, its token the group (read by the adapters' proxies).
START = re.compile(r"\[subagent-tck start=([A-Za-z0-9_-]+)\]")
#: A start driver's answer, as an adapter's proxy asks it: (the request, its token) -> the reply.
Driver = Callable[[ModelRequest, str], ModelReply]


def user_text(items: Any) -> str:
    """The content of the user messages of ``items`` (a request's messages, or its input),
    one a line: a text as it is, anything else as its JSON (where a proxy looks for a start
    marker)."""
    texts = []
    for item in items or []:
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            texts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(texts)


def start_marker(token: str) -> str:
    """What a start's driven agent carries in its system text (read by the adapters' proxies)."""
    return f"[subagent-tck start={token}]"


def token(number: int, level: int) -> str:
    """The start token of level ``level`` of start ``number``: 0 is the run's top-level
    session, K the K-th link below it."""
    return f"s{number}" if level == 0 else f"s{number}-{level}"


def parse_token(text: str) -> tuple[int, int] | None:
    match = _TOKEN.fullmatch(text)
    return None if match is None else (int(match[1]), int(match[2] or 0))


@dataclass(frozen=True)
class Lineage:
    """What the adapter wrote for one kit child: its definition and where it stands."""

    agent: str  # the kit's agent id ("child-3")
    file: str  # its agent definition (without the extension)
    persona: Any
    tool_filter: Any
    depth: int
    parent: str | None  # the kit agent that started it (None: a top-level agent)
    ancestors: tuple[Lineage, ...] = ()  # from the root's first call down to its parent
    #: an ancestor the adapter made up for an agent created at a depth (create_agent): no
    #: persona, no filter of its own, and allowed to delegate where the runtime asks for that
    filler: bool = False
    #: the model its definition names (None: none, its parent's)
    model: str | None = None
    #: the spawn policy its definition carries (None: none; only where the runtime has one)
    spawn_policy: Any = None

    @property
    def chain(self) -> tuple[Lineage, ...]:
        """Itself as the last of its line: what a start from it runs as links (none for an
        agent at depth 0, which stands where the top-level session does)."""
        return (*self.ancestors, self) if self.depth > 0 else ()

    @property
    def truncated(self) -> bool:
        """Whether its chain is shorter than its depth (an agent created deeper than the
        adapter builds: a start from it can only show where the runtime refuses the chain)."""
        return len(self.chain) < self.depth


@dataclass
class Start:
    """One kit ``start`` as the driver plays it."""

    number: int
    child: Lineage
    prompt: str
    links: tuple[Lineage, ...]  # the parent's chain (empty: the parent is the root)
    link_files: tuple[str, ...]  # each link's definition, written for this start
    header: SessionHeader  # the child's, once published
    setting: Any = UNSET  # the depth setting for this run: maxDepth or the host's, as given
    call_prefix: str = "call_tck_"
    #: the parent's chain is truncated: the last link makes no call (``reached`` tells whether
    #: the runtime let the whole chain through)
    probe: bool = False
    results: dict[int, Message] = field(default_factory=dict)
    offered: dict[int, bool] = field(default_factory=dict)  # level -> its request had the tool
    published: bool = False
    reached: bool = False
    #: what the parent's call of the tool got, with the error flag the runtime records itself
    #: where its wire has none (opencode's tool part state): RunResult.delegated
    #: (docs/rules.md#ST-09); None: read from :attr:`result` where the wire has the flag
    delegated: ToolResult | None = None

    @property
    def last(self) -> int:
        """The level whose call starts the child (the parent's)."""
        return len(self.links)

    def call_id(self, level: int) -> str:
        return f"{self.call_prefix}{self.number}" + ("" if level == 0 else f"_{level}")

    def target(self, level: int) -> str:
        """The definition level ``level`` calls the tool with."""
        return self.child.file if level == self.last else self.link_files[level]

    def drive(self, request: ModelRequest, level: int, tool: str) -> ModelReply:
        """The reply to level ``level``'s request: call the tool once, then end."""
        call = self.call_id(level)
        for message in request.messages:
            if message.role == "tool" and message.toolCallId == call:
                self.results[level] = message
                return ModelReply(text="done")
        offered = self.offered[level] = any(t.name == tool for t in request.tools)
        if not offered:  # a call would only be refused as a tool it does not have
            return ModelReply(text="done")
        if self.probe and level == self.last:
            self.reached = True
            return ModelReply(text="done")
        # a link's task carries its start marker too: a runtime whose driven agents are told
        # apart by their user text (opencode's proxy) finds it there
        prompt = self.prompt if level == self.last else \
            f"subagent-tck link {level + 1} {start_marker(token(self.number, level + 1))}"
        return ModelReply(toolCalls=[ToolCall(id=call, name=tool, arguments={
            "description": "subagent-tck start", "prompt": prompt,
            "subagent_type": self.target(level)})])

    @property
    def result(self) -> Message | None:
        """What the parent's call of the tool returned (the child's answer, or the runtime's
        refusal)."""
        return self.results.get(self.last)

    def refused_at(self) -> int | None:
        """The level whose call the runtime refused: the deepest one with an errored result
        (the levels above it got their callee's answer), else the first one with none (a
        call it never made, or one whose answer never came), else None."""
        errored = [level for level, result in self.results.items() if result.isError]
        if errored:
            return max(errored)
        return next((level for level in range(self.last + 1) if level not in self.results),
                    None)


def refusal(start: Start, runtime: str, tool: str, words: Mapping[ErrorCode, tuple[str, ...]],
            admits: Callable[[Lineage], bool], output: str,
            withheld: Callable[[Lineage | None], bool] = lambda link: False) -> TckError:
    """Why a start whose child never asked its model failed, as the kit's code: a refusal in
    the runtime's words for a code (``words``, by the adapters' reading of its code: its depth
    cap is DEPTH_EXCEEDED); the tool withheld from a link whose filter admits it, DEPTH_EXCEEDED
    (the runtime's depth cap); a link whose filter leaves the tool out cannot start anything,
    which the runtime cannot be asked (UNSUPPORTED_OPERATION); anything else is the runtime
    refusing the child's setup (SETUP_FAILED), with its words. ``admits``: whether a link, as
    the adapter wrote it, keeps the runtime's delegation tool; ``withheld``: whether a link's
    spawn policy (None: the top-level session's, from the root's preset), as written, makes the
    runtime withhold the tool (every agent refused: SPAWN_DENIED)."""
    def where(level: int | None) -> str:
        return ("the top-level session" if level in (None, 0) else
                f"{start.links[level - 1].agent} at depth {start.links[level - 1].depth}")

    def worded(text: str) -> ErrorCode | None:
        return next((code for code, said in words.items() if any(w in text for w in said)),
                    None)

    # A refusal in the runtime's words may come back as an ordinary tool result: a wire with
    # no error flag (chat completions: opencode) carries it as the result's text. So every
    # level's result is read for those words, the deepest first, before the flags are.
    for deep in sorted(start.results, reverse=True):
        said_text = str(start.results[deep].content)
        found = worded(said_text)
        if found is not None:
            return TckError(found, f"{runtime} refused the {tool} call of {where(deep)}: "
                            f"{said_text[:500]}")
    level = start.refused_at()
    result = start.results.get(level) if level is not None else None
    text = str(result.content) if result is not None else output
    found = worded(text) if result is None else None  # every result was read above
    if found is not None:
        return TckError(found, f"{runtime} refused the {tool} call of {where(level)}: "
                        f"{text[:500]}")
    if level == 0 and start.offered.get(0) is False and withheld(None):
        return TckError(ErrorCode.SPAWN_DENIED, f"{runtime} did not offer {where(0)} its {tool} "
                        "tool: the spawn policy of the root's definition refuses every agent")
    if level is not None and level > 0 and start.offered.get(level) is False:
        if withheld(start.links[level - 1]):
            return TckError(ErrorCode.SPAWN_DENIED, f"{runtime} did not offer {where(level)} "
                            f"its {tool} tool: the spawn policy its definition carries refuses "
                            "every agent")
        if admits(start.links[level - 1]):
            return TckError(ErrorCode.DEPTH_EXCEEDED, f"{runtime} did not offer {where(level)} "
                            f"its {tool} tool, which its definition admits: it withholds the "
                            "tool from an agent at its depth cap")
        return TckError(ErrorCode.UNSUPPORTED_OPERATION, f"{runtime} has no delegation from "
                        f"{where(level)} without its {tool} tool: its definition leaves {tool} "
                        "out, and a subagent starts subagents only by calling it")
    return TckError(ErrorCode.SETUP_FAILED, f"{runtime} did not start the child "
                    f"({where(level)}'s {tool} call): {text[:500]}")
