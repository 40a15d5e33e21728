"""TF-01's cases of a runtime's declared tool-name folding (docs/driver-api.md#tool-name-folding).

A target that declares :class:`~...core.dialect.ToolNameFolding` says two names the catalogue
keeps apart may be one tool to it. Every other check draws around such pairs
(:mod:`..name_folding`); TF-01, which asks that every two names be kept apart
(docs/rules.md#TF-01), draws one at every seed: two names the folding spells alike, among other
globals, under one restriction naming one or both, through each declared channel. A target
that declares no folding has no such partition in its run.
"""

from __future__ import annotations

from typing import Any, cast

from hypothesis import strategies as st

from ...core.dialect import ToolNameFolding
from ..check import CheckContext
from ..partitions import Drawer, Partition
from ._channels import channels_for
from ._names import folded_pairs, tool_names
from ._tool_filter_views import drawn_placed, judge_placed

RULE = "TF-01"
NAME = "folded-names"


@st.composite
def folded_state(draw: Any, folding: ToolNameFolding) -> dict[str, Any]:
    """Globals with two names ``folding`` spells alike, and one restriction naming one of them
    (an allow list, a deny list, or both lists with the deny naming it)."""
    one, other = draw(folded_pairs(folding))
    rest = [n for n in draw(tool_names(0, 3, avoid=(one, other)))
            if folding.fold(n) != folding.fold(one)]
    names = draw(st.permutations([one, other, *rest]))
    named = draw(st.sampled_from((one, other)))
    kind = draw(st.sampled_from(("allow", "deny", "both")))
    restriction: dict[str, list[str]] = (
        {"allow": [named]} if kind == "allow" else {"deny": [named]} if kind == "deny"
        else {"allow": [one, other, *rest[:1]], "deny": [named]})
    return {"globals": names, "restrictions": [restriction]}


def _cases(drawer: Drawer) -> Any:
    ctx = cast(CheckContext, drawer)
    assert ctx.folding is not None  # only covered when declared (folded_names)
    return drawn_placed(folded_state(ctx.folding), channels_for(ctx))


FOLDED = Partition(RULE, NAME, "two names the target's declared tool-name folding spells "
                   "alike, under one restriction naming one or both (none declared: not in "
                   "this run)", cases=_cases)


def folded_names(ctx: CheckContext) -> None:
    """TF-01 over a pair of names the target folds alike, drawn at every seed; not in a run
    whose target declares no folding, or none of whose channels can carry the case."""
    if ctx.folding is None or not channels_for(ctx):
        ctx.inapplicable(RULE, NAME)
        return
    ctx.cover(RULE, lambda t: judge_placed(
        ctx, RULE, t[0]["globals"], t[1],
        "the view of two names the target folds alike, under one restriction"), [NAME])
