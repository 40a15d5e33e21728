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
from ..partitions import Partition
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
from ._tool_filter_views import (
    ABC,
    AWKWARD,
    MODES,
    build,
    drawn_placed,
    drew_or_not,
    nothing_carried,
)
from .tool_filter import globals_st, restriction_st, scope_st

# --- TF-07, TF-08: invalid restrictions ---------------------------------------------------


TF07 = (
    Partition("TF-07", "empty-object", "{}"),
    Partition("TF-07", "allow-null", "{allow: null}"),
    Partition("TF-07", "deny-null", "{deny: null}"),
    Partition("TF-07", "both-null", "{allow: null, deny: null}"),
    Partition("TF-07", "null-beside-deny", "allow: null beside a deny list: the deny list alone"),
    Partition("TF-07", "null-beside-allow", "deny: null beside an allow list: the allow list "
              "alone"),
)
NO_OPS: tuple[tuple[dict[str, Any], str], ...] = (
    ({}, "empty-object"), ({"allow": None}, "allow-null"), ({"deny": None}, "deny-null"),
    ({"allow": None, "deny": None}, "both-null"))


@check("TF-07", name="tool-filter-no-op-refused", per_provider=False, partitions=TF07)
def no_op_refused(ctx: CheckContext) -> None:
    """A restriction with neither list (``{}``, or both absent or null) is refused with
    INVALID_TOOL_FILTER and nothing is installed; a null beside a real list is absent, not
    an empty list (the Decision of docs/rules.md#TF-07). Through every declared channel: the
    operation that carries the restriction refuses it (docs/driver-api.md#dialect)."""
    channels = channels_for(ctx)
    tools = [Tool(n) for n in ABC]
    for raw, part in NO_OPS:
        if validate_restriction(raw, ABC).ok:
            raise AssertionError(f"check bug: the oracle accepts {raw!r}")
        if channels:
            refuse(ctx, "TF-07", next_of(ctx, channels), tools, raw)
        drew_or_not(ctx, "TF-07", part, bool(channels))
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
        drew_or_not(ctx, "TF-07", "null-beside-deny" if partnered["allow"] is None
                    else "null-beside-allow", bool(found))
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


TF08 = (
    Partition("TF-08", "misspelled-global", "a global's name misspelled"),
    Partition("TF-08", "local-only-name", "a name only a scope-local tool has"),
    Partition("TF-08", "run-code", "the reserved run_code"),
    Partition("TF-08", "several-offenders", "valid names beside several offending ones, in both "
              "lists: every one listed"),
    Partition("TF-08", "case-twins-and-prefixes", "offenders that are case twins and prefixes "
              "of valid names, listed as whole tokens"),
)


@check("TF-08", name="tool-filter-unknown-names", per_provider=False, partitions=TF08)
def unknown_names(ctx: CheckContext) -> None:
    """A restriction naming anything outside the global restrictable set (a misspelling, a
    scope-local-only name, ``run_code``) is refused, the error lists every offending name, and
    nothing is installed. Through every declared channel (a local-only name is one the scope's
    own tools have on a live scope, a name of no tool elsewhere); offending as the channel's
    grammar reads the entries."""
    channels = channels_for(ctx)

    def body(state: dict[str, Any], pick: int | None = None) -> bool:
        """Judge ``state`` through a channel that carries it; whether one did."""
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
                return True
            tools = [Tool(n) for n in state["globals"]]
            bad = offending(channel, state["restriction"], tools)
            if bad:  # a grammar may read a stranger as one of its spellings
                refuse(ctx, "TF-08", channel, tools, state["restriction"], bad)
                return True
        return False

    for raw, part in (({"allow": ["alphaa"]}, "misspelled-global"),
                      ({"deny": ["lima"]}, "local-only-name"), ({"allow": [RUN_CODE]}, "run-code"),
                      ({"allow": ["alpha", "alphaa", "lima"], "deny": [RUN_CODE, "zulu"]},
                       "several-offenders")):
        drew_or_not(ctx, "TF-08", part, body({"globals": ABC, "locals": ["lima"],
                                              "restriction": raw,
                                              "mode": PresentationMode.BOTH}))
    # Offending names that are prefixes or case twins of valid ones: the error must list each
    # as a whole token (``rea`` is not listed by a message naming ``read``).
    drew_or_not(ctx, "TF-08", "case-twins-and-prefixes", body(
        {"globals": ["read", "read_file", "Read"], "locals": ["READ"],
         "restriction": {"allow": ["read", "rea", "READ"], "deny": ["read_fil", RUN_CODE]},
         "mode": PresentationMode.BOTH}))

    def drawn(case: tuple[dict[str, Any], int]) -> None:
        body(*case)

    ctx.for_all(st.tuples(unknown_names_st(), st.integers(0, 7)), drawn)
    nothing_carried(ctx, "TF-08", "a restriction on a scope, which no declared channel carries")
