"""The check of empty restriction lists (docs/rules.md#TF-03): ``allow: []`` hides every
global tool while scope-local tools and ``run_code`` stay; ``deny: []`` hides nothing.

Its cases in the both presentation mode beside scope-local tools are parts a target without
them cannot set up (:meth:`~..check.CheckContext.expressible`); the same lists over globals
alone, in the native mode and through every restriction channel the target declares
(docs/driver-api.md#dialect), are the part every target has.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import PresentationMode

from ..check import CheckContext, check
from ..partitions import Partition
from ._channels import channels_for, placements
from ._tool_filter_views import (
    ABC,
    AWKWARD,
    MODES,
    drawn_placed,
    drew_if_placed,
    judge_placed,
    judge_whole,
    nothing_carried,
    through_each,
)
from .tool_filter import restriction_st, scope_st


@st.composite
def empty_lists_st(draw: Any, local_count: tuple[int, int] = (0, 2),
                   modes: tuple[PresentationMode, ...] = MODES) -> dict[str, Any]:
    """One restriction with at least one empty list (several restrictions are TF-02's)."""
    state = draw(scope_st(restrictions=(0, 0), local_count=local_count, modes=modes))
    raw = draw(restriction_st(state["globals"], empty=True).filter(
        lambda r: any(v == [] for v in r.values())))
    return {**state, "restrictions": [raw]}


TF03 = (
    Partition("TF-03", "empty-allow", "allow: [] alone: every global hidden, locals and "
              "run_code stay"),
    Partition("TF-03", "empty-deny", "deny: [] alone: nothing hidden"),
    Partition("TF-03", "both-empty", "allow: [] and deny: []"),
    Partition("TF-03", "empty-deny-beside-allow", "deny: [] beside a non-empty allow list"),
    Partition("TF-03", "empty-allow-beside-deny", "allow: [] beside a non-empty deny list"),
    Partition("TF-03", "awkward-names", "an empty list beside a list of case twins and prefixes, "
              "with locals named like them"),
    Partition("TF-03", "globals-only", "each shape of empty list over globals alone, in the "
              "native mode, through every entry point the target declares: all a target "
              "without run_code or scope-local tools has of the rule"),
)

#: Each shape of restriction with an empty list, and its partition (docs/rules.md#TF-03).
Shape = tuple[list[dict[str, list[str]]], str]
EMPTY_SHAPES: list[Shape] = [
    ([{"allow": []}], "empty-allow"), ([{"deny": []}], "empty-deny"),
    ([{"allow": [], "deny": []}], "both-empty"),
    ([{"allow": ["alpha"], "deny": []}], "empty-deny-beside-allow"),
    ([{"allow": [], "deny": ["alpha"]}], "empty-allow-beside-deny")]


@check("TF-03", name="tool-filter-empty-lists", per_provider=False, partitions=TF03)
def empty_lists(ctx: CheckContext) -> None:
    """``allow: []`` hides every global tool while scope-local tools and ``run_code`` stay;
    ``deny: []`` hides nothing. The cases in the both mode beside a scope-local tool are parts
    a target without them cannot set up (each then inexpressible, docs/certify.md#partitions);
    the same lists over globals alone, through each declared channel, every target has."""
    for rules, part in EMPTY_SHAPES:
        with ctx.expressible("TF-03", part):
            state = {"globals": ABC, "restrictions": rules, "locals": ["lima"],
                     "mode": PresentationMode.BOTH}
            judge_whole(ctx, "TF-03", state, f"globals {ABC}, local lima, mode both, under "
                        f"{rules}")
            ctx.drew("TF-03", part)
    with ctx.expressible("TF-03", "awkward-names"):
        for rules in ([{"allow": [], "deny": ["read"]}], [{"allow": ["Read"], "deny": []}]):
            state = {"globals": AWKWARD, "restrictions": rules, "locals": ["READ", "read_fil"],
                     "mode": PresentationMode.BOTH}
            judge_whole(ctx, "TF-03", state, f"globals {AWKWARD}, locals READ and read_fil, "
                        f"mode both, under {rules}")
        ctx.drew("TF-03", "awkward-names")
    for rules, _ in EMPTY_SHAPES:
        through_each(ctx, "TF-03", ABC, rules, f"globals {ABC} alone under {rules}")
    drew_if_placed(ctx, "TF-03", "globals-only", EMPTY_SHAPES[0][0])
    with ctx.expressible("TF-03"):  # the drawn states have locals and every mode
        ctx.for_all(empty_lists_st(), lambda s: judge_whole(
            ctx, "TF-03", s, "the view with an empty allow or deny list"))
    channels = channels_for(ctx)
    if any(placements(channels, rules) for rules, _ in EMPTY_SHAPES):
        native = empty_lists_st(local_count=(0, 0), modes=(PresentationMode.NATIVE,))
        ctx.for_all(drawn_placed(native, channels), lambda t: judge_placed(
            ctx, "TF-03", t[0]["globals"], t[1], "the view over globals alone with an empty "
            "list"))
    nothing_carried(ctx, "TF-03", "an empty list on a scope, which no declared channel carries")
