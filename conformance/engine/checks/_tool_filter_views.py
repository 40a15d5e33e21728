"""The views the TF checks judge: the hand-written globals of their explicit cases, a scope
built from a state (globals, mode, locals, restrictions on the root agent) and its view judged
against the oracle (:func:`~subagent_tck.spec.resolve_view` through
:func:`._support.oracle_view`), directly or through the restriction channels the target declares
(docs/driver-api.md#dialect), and how a fixed case's partition is drawn or found not to exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import PresentationMode
from subagent_tck.spec.grammar import Tool

from ...core.protocol import ToolSpec
from ...core.target import Deployment
from ..check import CheckContext
from ._channels import (
    Change,
    Placement,
    channels_for,
    inexpressible,
    judge_tools,
    next_of,
    placement_st,
    placements,
)
from ._channels import observe_view as observe
from ._clauses import said
from ._names import MAX_NAME
from ._observed import oracle_view

#: Hand-written globals of the explicit cases (they run at every seed). Drawn cases take
#: their names from :mod:`._names`: realistic, case twins, prefixes, non-ASCII, long.
ABC = ["alpha", "bravo", "charlie"]
#: Explicit globals in the shapes real registries have: case twins (read, Read), names that
#: are prefixes of each other (read, read_file, read_file_v2), MCP names, non-ASCII, long.
AWKWARD = ["read", "Read", "read_file", "read_file_v2", "mcp__github__create_issue",
           "get_weather", "検索", "café", "x" * MAX_NAME]
LOCAL = "local"
GLOBAL = "global"
RESERVED = "reserved"
MODES = (PresentationMode.NATIVE, PresentationMode.PTC, PresentationMode.BOTH)


def local_spec(name: str) -> ToolSpec:
    """A scope-local tool whose schema differs from any global's (TF-05 compares schemas)."""
    return ToolSpec(name=name, description=f"local {name}",
                    parameters={"type": "object", "properties": {"local": {"type": "string"}}})


def build(ctx: CheckContext, rule: str, state: dict[str, Any]) -> tuple[Deployment, str]:
    """Deploy the state's globals and mode; register its locals and install its restrictions
    on the root agent."""
    mode = state.get("mode", PresentationMode.NATIVE)
    dep = ctx.deploy(tools=state["globals"], mode=mode)
    agent = dep.root().agent
    with ctx.step(rule, f"setting the presentation mode {mode.value}"):
        dep.set_mode(agent, mode)
    with ctx.step(rule, f"registering local tools {state.get('locals', [])}"):
        for name in state.get("locals", ()):
            dep.register_tool(local_spec(name), agent)
    for raw in state.get("restrictions", ()):
        with ctx.step(rule, f"installing the valid restriction {raw}"):
            dep.install_restriction(agent, raw)
    return dep, agent


def expected(state: dict[str, Any]) -> frozenset[Any]:
    return oracle_view(state["globals"], state.get("restrictions", ()), state.get("locals", ()),
                       state.get("mode", PresentationMode.NATIVE))


def only(view: frozenset[Any], origin: str) -> frozenset[Any]:
    return frozenset(e for e in view if e[1] == origin)


def judge_whole(ctx: CheckContext, rule: str, state: dict[str, Any], what: str) -> None:
    dep, agent = build(ctx, rule, state)
    seen, want = observe(ctx, rule, dep, agent), expected(state)
    ctx.expect(rule, seen == want, said(rule, what), sorted(want), sorted(seen))


def judge_placed(ctx: CheckContext, rule: str, names: Sequence[str], placement: Placement,
                 what: str, changes: Sequence[Change] = ()) -> None:
    """The view of ``placement``'s scope over globals ``names`` (once ``changes`` are made)
    against the oracle of its channels' grammars."""
    judge_tools(ctx, rule, [Tool(n) for n in names], placement, what, changes)


def through_each(ctx: CheckContext, rule: str, names: Sequence[str], restrictions: list[Any],
                 what: str, changes: Sequence[Change] = ()) -> None:
    """A check's one fixed case through every placement the declared channels can make of
    it."""
    for placement in placements(channels_for(ctx), restrictions):
        judge_placed(ctx, rule, names, placement, what, changes)


def through_next(ctx: CheckContext, rule: str, names: Sequence[str], restrictions: list[Any],
                 what: str) -> None:
    """One of a check's several fixed cases through the next placement the declared channels
    can make of it (:func:`._channels.next_of`)."""
    found = placements(channels_for(ctx), restrictions)
    if found:
        judge_placed(ctx, rule, names, next_of(ctx, found), what)


def drew_or_not(ctx: CheckContext, rule: str, name: str, judged: bool) -> None:
    """A fixed case's partition ``name``: drawn if a declared channel carried the case
    (``judged``), else it does not exist in this run (docs/certify.md#partitions)."""
    if judged:
        ctx.drew(rule, name)
    else:
        ctx.inapplicable(rule, name)


def drew_if_placed(ctx: CheckContext, rule: str, name: str, restrictions: list[Any]) -> None:
    """:func:`drew_or_not`, judged by whether the declared channels can put ``restrictions``
    on a scope."""
    drew_or_not(ctx, rule, name, bool(placements(channels_for(ctx), restrictions)))


def drawn_placed(state: st.SearchStrategy[dict[str, Any]], channels: Sequence[Any],
                 key: str = "restrictions") -> st.SearchStrategy[tuple[dict[str, Any], Placement]]:
    """Drawn states, each with a placement of its restrictions drawn among the declared
    channels (a state no channel can carry is drawn again)."""
    return state.flatmap(lambda s: st.tuples(st.just(s), placement_st(
        channels, s[key] if isinstance(s[key], list) else [s[key]]))).filter(
        lambda t: t[1] is not None)


def nothing_carried(ctx: CheckContext, rule: str, what: str) -> None:
    """A rule none of whose cases a declared channel could carry: not applicable, as a
    situation the target cannot express (docs/driver-api.md#dialect)."""
    if rule not in ctx.exercised and not any(f.rule == rule for f in ctx.failures):
        inexpressible(ctx, what)
