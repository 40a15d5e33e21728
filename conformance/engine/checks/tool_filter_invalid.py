"""Checks of the tool filter, part three: restrictions that must be refused (TF-07, TF-08).

A restriction with neither list, or naming anything outside the global restrictable set, is
refused by the operation that carries it, with INVALID_TOOL_FILTER and nothing installed:
``install-restriction`` on a live scope, or the deployment, start or turn that carries it
through another restriction channel the target declares (docs/driver-api.md#dialect). As in
:mod:`.tool_filter`, expectations come from the spec oracle.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import RUN_CODE, PresentationMode, validate_restriction
from subagent_tck.spec.grammar import Tool

from ...core.dialect import ChannelKind
from ..check import CheckContext, check
from ._channels import (
    Placement,
    channels_for,
    next_of,
    offending,
    placements,
    put,
    refuse,
    refused,
    used,
)
from ._clauses import said
from ._names import strangers, tool_names
from .tool_filter import (
    ABC,
    AWKWARD,
    MODES,
    build,
    drawn_placed,
    globals_st,
    nothing_carried,
    restriction_st,
    scope_st,
)

# --- TF-07, TF-08: invalid restrictions ---------------------------------------------------


@check("TF-07", name="tool-filter-no-op-refused", per_provider=False)
def no_op_refused(ctx: CheckContext) -> None:
    """A restriction with neither list (``{}``, or both absent or null) is refused with
    INVALID_TOOL_FILTER and nothing is installed; a null beside a real list is absent, not
    an empty list (the Decision of docs/rules.md#TF-07). Through every declared channel: the
    operation that carries the restriction refuses it (docs/driver-api.md#dialect)."""
    channels = channels_for(ctx)
    tools = [Tool(n) for n in ABC]
    for raw in ({}, {"allow": None}, {"deny": None}, {"allow": None, "deny": None}):
        if validate_restriction(raw, ABC).ok:
            raise AssertionError(f"check bug: the oracle accepts {raw!r}")
        if channels:
            refuse(ctx, "TF-07", next_of(ctx, channels), tools, raw)
    # Decision (docs/rules.md#TF-07): a list given as null counts as absent, so a null beside a
    # real list leaves the restriction that list alone; a target reading null as [] hides every
    # global behind ``allow: null``. The other list is never empty and the scope has no locals
    # and no run_code, so that TF-03, TF-04 and TF-06 play no part. Fixed partners at every
    # seed, then drawn ones.
    partners: list[tuple[list[str], dict[str, list[str] | None]]] = [
        (ABC, {"allow": None, "deny": ["alpha"]}),
        (ABC, {"allow": ["bravo", "charlie"], "deny": None}),
        (AWKWARD, {"deny": ["read", "検索"], "allow": None})]
    for names, partnered in partners:
        found = placements(channels, [partnered])
        if found:
            null_partner(ctx, {"globals": names, "restriction": partnered}, next_of(ctx, found))
    ctx.for_all(drawn_placed(null_partner_st(), channels, key="restriction"),
                lambda t: null_partner(ctx, t[0], t[1]))
    nothing_carried(ctx, "TF-07", "a restriction on a scope, which no declared channel carries")


@st.composite
def null_partner_st(draw: Any) -> dict[str, Any]:
    """A scope with one valid restriction whose other list is given as null."""
    state = draw(scope_st(restrictions=(0, 0), local_count=(0, 0)))
    raw: dict[str, Any] = draw(restriction_st(state["globals"], both=False))
    raw["deny" if "allow" in raw else "allow"] = None
    return {**state, "restriction": dict(sorted(raw.items()))}


def null_partner(ctx: CheckContext, state: dict[str, Any], placement: Placement) -> None:
    """``state``'s restriction (one list and a null) is put and acts as its list alone: one
    scope gets it, a second the same list without the null key, through the same channel, and
    the two views must agree. Judged against the target's own reading of the list (not the
    oracle's view), so a target that misreads the list itself fails TF-01 and not this."""
    raw = state["restriction"]
    alone = {k: v for k, v in raw.items() if v is not None}
    if not validate_restriction(raw, state["globals"]).ok:
        raise AssertionError(f"check bug: the oracle refuses {raw!r}")
    tools = [Tool(n) for n in state["globals"]]
    (channel, _), = placement.parts
    seen = put(ctx, "TF-07", placement, tools)
    want = put(ctx, "TF-07", Placement(((channel, alone),)), tools)
    ctx.expect("TF-07", seen == want,
               said("TF-07", f"the view under {raw!r} differs from the view under {alone!r}, "
                    f"both through {placement.label}: a list given as null counts as absent"),
               sorted(want), sorted(seen))


@st.composite
def unknown_names_st(draw: Any) -> dict[str, Any]:
    """Globals, scope-local-only names, and a restriction naming at least one stranger: a
    misspelled global, a local-only name or ``run_code``."""
    names = draw(globals_st)
    locals_ = draw(tool_names(0, 3, avoid=names))
    others = [*strangers(names, avoid=locals_), *locals_, RUN_CODE]
    raw = draw(restriction_st(sorted({*names, *others}), empty=True))
    if not validate_restriction(raw, names).offending:
        key = draw(st.sampled_from(sorted(raw)))
        raw[key] = [*raw[key], draw(st.sampled_from(others))]
    return {"globals": names, "locals": locals_, "restriction": raw,
            "mode": draw(st.sampled_from(MODES))}


def _names_a_local(state: dict[str, Any]) -> bool:
    raw = state["restriction"]
    named = {n for key in ("allow", "deny") for n in (raw.get(key) or ())}
    return bool(named & set(state["locals"]))


@check("TF-08", name="tool-filter-unknown-names", per_provider=False)
def unknown_names(ctx: CheckContext) -> None:
    """A restriction naming anything outside the global restrictable set (a misspelling, a
    scope-local-only name, ``run_code``) is refused, the error lists every offending name, and
    nothing is installed. Through every declared channel (a local-only name is one the scope's
    own tools have on a live scope, a name of no tool elsewhere); offending as the channel's
    grammar reads the entries."""
    channels = channels_for(ctx)

    def body(state: dict[str, Any], pick: int | None = None) -> None:
        carrying = [c for c in channels if c.carries(state["restriction"])]
        live = [c for c in carrying if c.kind is ChannelKind.LIVE]
        if live and pick is None and _names_a_local(state):
            # a local-only name exists only on a live scope: a fixed case naming one goes
            # through the live channel wherever the target has it
            carrying = live
        if carrying:
            channel = next_of(ctx, carrying) if pick is None else carrying[pick % len(carrying)]
            if channel.kind is ChannelKind.LIVE:
                used(ctx, Placement(((channel, state["restriction"]),)))
                dep, agent = build(ctx, "TF-08", {**state, "restrictions": []})
                bad = offending(channel, state["restriction"], [Tool(n) for n in
                                                                state["globals"]])
                refused(ctx, "TF-08", dep, agent, state["restriction"], bad)
                return
            tools = [Tool(n) for n in state["globals"]]
            bad = offending(channel, state["restriction"], tools)
            if bad:  # a grammar may read a stranger as one of its spellings
                refuse(ctx, "TF-08", channel, tools, state["restriction"], bad)

    for raw in ({"allow": ["alphaa"]}, {"deny": ["lima"]}, {"allow": [RUN_CODE]},
                {"allow": ["alpha", "alphaa", "lima"], "deny": [RUN_CODE, "zulu"]}):
        body({"globals": ABC, "locals": ["lima"], "restriction": raw,
              "mode": PresentationMode.BOTH})
    # Offending names that are prefixes or case twins of valid ones: the error must list each
    # as a whole token (``rea`` is not listed by a message naming ``read``).
    body({"globals": ["read", "read_file", "Read"], "locals": ["READ"],
          "restriction": {"allow": ["read", "rea", "READ"], "deny": ["read_fil", RUN_CODE]},
          "mode": PresentationMode.BOTH})
    ctx.for_all(st.tuples(unknown_names_st(), st.integers(0, 7)), lambda t: body(t[0], t[1]))
    nothing_carried(ctx, "TF-08", "a restriction on a scope, which no declared channel carries")
