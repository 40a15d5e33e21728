"""Checks of the tool filter, part four: the registry is live (TF-09..TF-11).

Global tools registered and unregistered after a restriction was put reach every view at once,
filtered by it: through every restriction channel the target declares
(docs/driver-api.md#dialect), the registry changed after the restriction (a child's or the
root's while it runs, between two of its requests), and in each channel's own grammar (a
server-level or wildcard entry reaches a tool registered later). As in :mod:`.tool_filter`,
expectations come from the spec oracle and single-list restrictions keep TF-01 out of it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import PresentationMode
from subagent_tck.spec.grammar import Tool

from ...core.dialect import ChannelKind
from ...core.protocol import ToolSpec
from ..check import CheckContext, check
from ..partitions import Partition
from ._channels import Change, Channel, Placement, channels_for, placements, used
from ._channels import observe_view as observe
from ._clauses import said
from ._grammar_cases import spelled
from ._names import tool_names
from ._observed import oracle_view
from ._tool_filter_views import ABC, MODES, drawn_placed, drew_or_not, judge_placed, nothing_carried
from .tool_filter import restriction_st, subset

# --- TF-09..TF-11: the registry is live ---------------------------------------------------


@st.composite
def live_st(draw: Any, key: str) -> dict[str, Any]:
    """Globals, one ``key``-only restriction, names registered later, names registered
    again after being unregistered."""
    names = draw(tool_names(1, 5))
    fresh = draw(tool_names(1, 4, avoid=names))
    return {"globals": names, "restriction": {key: draw(subset(names))},
            "later": draw(subset(fresh)), "again": draw(subset(names, 0))}


def live_changes(state: dict[str, Any]) -> list[Change]:
    """The registry changes of a live-registry state: ``again`` unregistered and registered
    again, then ``later`` registered."""
    changes: list[Change] = []
    for name in state["again"]:
        changes += [("unregister", name), ("register", Tool(name))]
    return changes + [("register", Tool(name)) for name in state["later"]]


def live(ctx: CheckContext, rule: str, state: dict[str, Any], placement: Placement) -> None:
    judge_placed(ctx, rule, state["globals"], placement,
                 f"{state['restriction']} put, then {state['again']} registered again and "
                 f"{state['later']} registered later", live_changes(state))


def live_rule(ctx: CheckContext, rule: str, fixed: dict[str, Any], key: str,
              partition: str) -> None:
    """A live-registry rule through every declared channel: the fixed state through each
    placement (``partition``; inapplicable where no channel carries it), drawn states through a
    drawn one, then drawn cases in each channel's own grammar (a server-level or wildcard entry
    must reach a tool registered later)."""
    channels = channels_for(ctx)
    fixed_placements = placements(channels, [fixed["restriction"]])
    for placement in fixed_placements:
        live(ctx, rule, fixed, placement)
    drew_or_not(ctx, rule, partition, bool(fixed_placements))
    ctx.for_all(drawn_placed(live_st(key), channels, key="restriction"),
                lambda t: live(ctx, rule, t[0], t[1]))
    spelled(ctx, rule, channels, later=True, keys=(key,))
    nothing_carried(ctx, rule, f"a {key} list on a scope, which no declared channel carries")


TF09 = (Partition("TF-09", "later-and-denied-again", "a global registered after a deny list, "
                  "and a denied one unregistered and registered again"),)


@check("TF-09", name="tool-filter-live-deny", per_provider=False, partitions=TF09)
def live_deny(ctx: CheckContext) -> None:
    """A deny-only restriction admits a global registered after it, unless it names it."""
    live_rule(ctx, "TF-09", {"globals": ["alpha", "bravo"], "restriction": {"deny": ["bravo"]},
                             "later": ["charlie"], "again": ["bravo"]}, "deny",
              "later-and-denied-again")


TF10 = (Partition("TF-10", "later-and-allowed-again", "a global registered after an allow "
                  "list, and an allowed one unregistered and registered again"),)


@check("TF-10", name="tool-filter-live-allow", per_provider=False, partitions=TF10)
def live_allow(ctx: CheckContext) -> None:
    """An allow list excludes a global registered after it unless it names it; a named tool
    removed and registered again is visible again."""
    live_rule(ctx, "TF-10", {"globals": ["alpha", "bravo"], "restriction": {"allow": ["alpha",
                             "bravo"]}, "later": ["charlie"], "again": ["bravo"]}, "allow",
              "later-and-allowed-again")


@st.composite
def removal_st(draw: Any) -> dict[str, Any]:
    names = draw(tool_names(2, 6))
    return {"globals": names, "a": draw(restriction_st(names, both=False)),
            "b": draw(restriction_st(names, both=False)), "removed": draw(subset(names)),
            "mode": draw(st.sampled_from([m.value for m in MODES])),
            "pick": draw(st.integers(0, 7))}  # which channel other than live carries "a"


def shadow_removal(ctx: CheckContext, names: list[str], shadowed: str) -> None:
    """A global shadowed by a scope's local, unregistered, then the local unregistered: the
    global stays gone from that scope too."""
    dep = ctx.deploy(tools=names)
    agent = dep.create_agent().agent
    with ctx.step("TF-11", f"shadowing {shadowed} with a local, then unregistering the global "
                  "and the local"):
        dep.register_tool(ToolSpec(name=shadowed, description=f"local {shadowed}"), agent)
        dep.unregister_tool(shadowed)
        dep.unregister_tool(shadowed, agent)
    seen = observe(ctx, "TF-11", dep, agent)
    want = oracle_view([n for n in names if n != shadowed], [])
    ctx.expect("TF-11", seen == want,
               said("TF-11", f"the global {shadowed} unregistered while a local "
               "shadowed it, then the local unregistered"), sorted(want), sorted(seen))


def removal(ctx: CheckContext, state: dict[str, Any]) -> None:
    """Restrictions installed, globals unregistered: every view as the oracle's, in the
    state's presentation mode (the registry's own view has no ``run_code`` in any mode,
    docs/rules.md#TF-06: it belongs to a scope's presentation)."""
    names = state["globals"]
    mode = PresentationMode(state.get("mode", "native"))
    dep = ctx.deploy(tools=names, mode=mode)
    root, a, b = dep.root().agent, dep.create_agent().agent, dep.create_agent().agent
    with ctx.step("TF-11", "installing valid restrictions"):
        handle = dep.install_restriction(a, state["a"])
        dep.install_restriction(b, state["b"])
    with ctx.step("TF-11", f"unregistering {state['removed']}"):
        for name in state["removed"]:
            dep.unregister_tool(name)
    left = [n for n in names if n not in state["removed"]]
    for who, rules in ((None, []), (root, []), (a, [state["a"]]), (b, [state["b"]])):
        seen = observe(ctx, "TF-11", dep, who)
        want = oracle_view(left, rules, mode=PresentationMode.NATIVE if who is None else mode,
                           valid_over=names)
        ctx.expect("TF-11", seen == want, said("TF-11", f"the view of {who or 'the registry'} once "
                   f"{state['removed']} is unregistered (restrictions {rules}, mode "
                   f"{mode.value})"), sorted(want), sorted(seen))
    with ctx.step("TF-11", "disposing a restriction that named an unregistered tool"):
        dep.dispose_restriction(a, handle)
    seen, want = observe(ctx, "TF-11", dep, a), oracle_view(left, [], mode=mode)
    ctx.expect("TF-11", seen == want,
               said("TF-11", "disposed after the removal"), sorted(want), sorted(seen))


def removal_placed(ctx: CheckContext, state: dict[str, Any], placement: Placement) -> None:
    """A restriction put through a channel other than live, globals unregistered after it:
    the scope's view is the oracle's over what is left, the restriction still filtering."""
    judge_placed(ctx, "TF-11", state["globals"], placement,
                 f"{placement.restrictions[0]} put, then {state['removed']} unregistered",
                 [("unregister", name) for name in state["removed"]])


TF11 = (
    Partition("TF-11", "named-by-an-allow-list", "a global an allow list names, unregistered"),
    Partition("TF-11", "in-mode-both", "a global unregistered in mode both: the registry's view "
              "stays the registered globals"),
    Partition("TF-11", "shadowed-by-a-local", "a global a local shadows, unregistered, then the "
              "local"),
    Partition("TF-11", "put-through-another-channel", "a global unregistered after a "
              "restriction put through a channel other than a live one"),
)
#: The partitions only a live restriction channel can show (a disposal, a scope's local).
LIVE_ONLY = ("named-by-an-allow-list", "in-mode-both", "shadowed-by-a-local")


@check("TF-11", name="tool-filter-live-removal", per_provider=False, partitions=TF11)
def live_removal(ctx: CheckContext) -> None:
    """Unregistering a global removes it from every view at once; restrictions that named it
    stay installed (they still filter) and valid (they can be disposed). Through every
    declared channel; only a live one can show the disposal."""
    channels = channels_for(ctx)
    live_ones = [c for c in channels if c.kind is ChannelKind.LIVE]
    others = [c for c in channels if c.kind is not ChannelKind.LIVE]
    fixed = {"globals": ABC, "a": {"allow": ["alpha", "bravo"]}, "b": {"deny": ["charlie"]},
             "removed": ["bravo"]}
    if live_ones:
        used_live(ctx, live_ones[0])
        removal(ctx, fixed)
        # the same in mode both: the registry's view stays the registered globals
        removal(ctx, {"globals": ABC, "a": {"allow": ["alpha"]}, "b": {"deny": ["alpha"]},
                      "removed": ["charlie"], "mode": "both"})
        shadow_removal(ctx, ["read", "Read", "read_file"], "read")
        for name in LIVE_ONLY:
            ctx.drew("TF-11", name)
    else:
        ctx.inapplicable("TF-11", *LIVE_ONLY)
    placed = False
    for key in ("a", "b"):
        for placement in placements(others, [fixed[key]]):
            removal_placed(ctx, fixed, placement)
            placed = True
    drew_or_not(ctx, "TF-11", "put-through-another-channel", placed)

    def body(state: dict[str, Any]) -> None:
        if live_ones:
            removal(ctx, state)
            shadow_removal(ctx, state["globals"], state["removed"][0])
        found = placements(others, [state["a"]])
        if found:
            removal_placed(ctx, state, found[state["pick"] % len(found)])

    ctx.for_all(removal_st(), body)
    nothing_carried(ctx, "TF-11", "a restriction on a scope, which no declared channel carries")


def used_live(ctx: CheckContext, channel: Channel) -> None:
    """The check built cases through the live channel (its note says so)."""
    used(ctx, Placement(((channel, {}),)))
