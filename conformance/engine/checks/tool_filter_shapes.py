"""TF-07 over the shapes of a filter object (docs/rules.md#TF-07): keys other than ``allow`` and
``deny``, and lists given as null, wherever a filter is given.

- A key other than ``allow``/``deny`` is refused with ``INVALID_TOOL_FILTER`` and installs
  nothing (the oracle's Decision: the misspelling, ``Allow`` or ``exclude``, that makes a
  filter look effective while it is not, the mistake TF-07 exists to catch), beside a valid
  list or alone; installed on a scope, and composed into a child (from a preset in
  preset-composition, from the request in request-controls).
- A list given as null beside a real list counts as absent (the Decision of TF-07): a child
  composed with ``{allow: null, deny: [...]}`` is offered what a child composed with
  ``{deny: [...]}`` alone is, judged against the target's own reading of the list alone (a
  target misreading the list itself fails TF-01, not this).

Each partition is drawn at every seed (:meth:`~..check.CheckContext.cover`).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    Capability,
    ErrorCode,
    PresentationMode,
    TckError,
    validate_restriction,
)

from ...core.protocol import DeploymentConfig, ToolSpec
from ..check import CheckContext, check
from ..partitions import Partition
from ._channels import refused
from ._clauses import said
from ._composed import deploy_or_refusal
from ._names import tool_names
from ._observed import expect_unchanged, snapshot
from ._starts import composition, provider_name, start_request
from ._tool_filter_views import build
from .tool_filter import restriction_st, scope_st, subset

RULE = "TF-07"
#: Keys a filter may carry by mistake: another case, a near spelling, another word, spaces.
KEY_LOOKALIKES = ("Allow", "DENY", "allowed", "denied", "allowList", "deny_list", "exclude",
                  "include", "tools", "only", "allow ", " deny", "")


@st.composite
def unknown_key_st(draw: Any, alone: bool) -> dict[str, Any]:
    """Globals and a filter with one or two keys other than ``allow``/``deny`` (a lookalike or
    any text, valued a list of globals, ``[]`` or null), alone or beside a valid list."""
    state = draw(scope_st(restrictions=(0, 0), local_count=(0, 0)))
    names = state["globals"]
    raw: dict[str, Any] = {} if alone else dict(draw(restriction_st(names)))
    for _ in range(draw(st.integers(1, 2))):
        key = draw(st.one_of(st.sampled_from(KEY_LOOKALIKES), st.text(max_size=12)).filter(
            lambda k: k not in ("allow", "deny")))
        raw[key] = draw(st.one_of(subset(names, 0), st.none()))
    return {**state, "restriction": raw}


def _unknown_key(alone: bool) -> Any:
    def inside(state: dict[str, Any]) -> bool:
        keys = set(state["restriction"])
        return bool(keys - {"allow", "deny"}) and (not keys & {"allow", "deny"}) == alone
    return inside


@st.composite
def null_partner_st(draw: Any, null: str) -> dict[str, Any]:
    """Two or more globals and a filter whose ``null`` list is given as null beside the other,
    a non-empty list of globals that leaves one of them visible (a deny list of them all would
    hide as much as ``allow: []`` does, and tell nothing)."""
    names = draw(tool_names(2, 8))
    other = "deny" if null == "allow" else "allow"
    listed = draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names) - 1,
                           unique=True))
    return {"globals": names, "restrictions": [], "locals": [],
            "mode": PresentationMode.NATIVE, "restriction": {null: None, other: listed}}


def _null_partner(null: str) -> Any:
    def inside(state: dict[str, Any]) -> bool:
        raw, names = state["restriction"], state["globals"]
        other = [k for k in raw if k != null]
        return raw.get(null, 0) is None and sorted(raw) == ["allow", "deny"] and all(
            0 < len(raw[k]) < len(names) for k in other)
    return inside


UNKNOWN_KEYS = (
    Partition(RULE, "unknown-key-beside-a-list", "a key other than allow/deny beside a valid "
              "list, installed on a scope: refused, nothing installed",
              cases=unknown_key_st(False), member=_unknown_key(False)),
    Partition(RULE, "unknown-key-alone", "only keys other than allow/deny, installed on a scope: "
              "refused, nothing installed", cases=unknown_key_st(True),
              member=_unknown_key(True)),
)


def unknown_key(ctx: CheckContext, state: dict[str, Any]) -> None:
    raw = state["restriction"]
    if validate_restriction(raw, state["globals"]).ok:
        raise AssertionError(f"check bug: the oracle accepts {raw!r}")
    dep, agent = build(ctx, RULE, {**state, "restrictions": []})
    refused(ctx, RULE, dep, agent, raw)


@check(RULE, name="tool-filter-unknown-keys", per_provider=False, partitions=UNKNOWN_KEYS)
def unknown_keys(ctx: CheckContext) -> None:
    """A restriction with a key other than allow and deny, beside a valid list or alone, is
    refused with INVALID_TOOL_FILTER and nothing is installed."""
    ctx.cover(RULE, lambda state: unknown_key(ctx, state))


# --- a child's filter -------------------------------------------------------------------------

COMPOSED = (
    Partition(RULE, "composed-null-beside-deny", "a child's filter {allow: null, deny: [...]}: "
              "offered what {deny: [...]} offers", cases=null_partner_st("allow"),
              member=_null_partner("allow")),
    Partition(RULE, "composed-null-beside-allow", "a child's filter {allow: [...], deny: null}: "
              "offered what {allow: [...]} offers", cases=null_partner_st("deny"),
              member=_null_partner("deny")),
    Partition(RULE, "composed-unknown-key", "a child's filter with a key other than allow/deny: "
              "refused, nothing created", cases=st.booleans().flatmap(unknown_key_st),
              member=lambda state: bool(set(state["restriction"]) - {"allow", "deny"})),
)
NO_FILTER = "the provider does not advertise toolFilter (CA-01 judges its refusal)"


def _offered(ctx: CheckContext, state: dict[str, Any]) -> None:
    """Two children, one composed with the null-partnered filter and one with its list alone:
    their first requests must offer the same tools (native mode: the wire is the view)."""
    raw = state["restriction"]
    alone = {k: v for k, v in raw.items() if v is not None}
    with_null = composition(ctx.edition, {"toolFilter": raw}, "tf-null")
    without = composition(ctx.edition, {"toolFilter": alone}, "tf-alone")
    dep = ctx.deploy(tools=state["globals"], presets=with_null.presets + without.presets)
    root = dep.root().agent
    offered = []
    for comp, what in ((with_null, f"{raw!r}"), (without, f"{alone!r}")):
        with ctx.step(RULE, f"starting a child composed with the filter {what}"):
            result = dep.start(start_request(root, provider_name(ctx), "filtered child",
                                             comp.fields))
        requests = ctx.gateway.requests(result.agent)
        offered.append(sorted(t.name for t in requests[0].tools) if requests else None)
    ctx.expect(RULE, offered[0] == offered[1],
               said(RULE, f"a child composed with {raw!r} is offered other tools than one "
                    f"composed with {alone!r}: a list given as null counts as absent"),
               offered[1], offered[0])


def _refused(ctx: CheckContext, state: dict[str, Any]) -> None:
    """A child's filter with a key other than allow/deny: refused (when the preset is
    configured, or at the start) with INVALID_TOOL_FILTER, nothing created."""
    raw = state["restriction"]
    comp = composition(ctx.edition, {"toolFilter": raw}, "tf-keys")
    tools = [ToolSpec(name=t, description=f"tool {t}") for t in state["globals"]]
    deployed = deploy_or_refusal(ctx, DeploymentConfig(edition=ctx.edition, tools=tools,
                                                       presets=comp.presets))
    if isinstance(deployed, TckError):
        ctx.expect(RULE, deployed.code is ErrorCode.INVALID_TOOL_FILTER,
                   said(RULE, f"a preset with the filter {raw!r} was refused at configuration "
                        f"with {deployed.code.value}"), ErrorCode.INVALID_TOOL_FILTER.value,
                   deployed.to_json())
        return
    dep = deployed
    root = dep.root().agent
    before = snapshot(dep, ctx.gateway, [root])
    request = start_request(root, provider_name(ctx), "filtered child", comp.fields)
    ctx.expect_error(RULE, ErrorCode.INVALID_TOOL_FILTER, lambda: dep.start(request),
                     said(RULE, f"starting a child composed with the filter {raw!r}"))
    expect_unchanged(ctx, RULE, before, dep, f"a refused start with the filter {raw!r}")


def composed(ctx: CheckContext, state: dict[str, Any]) -> None:
    if set(state["restriction"]) - {"allow", "deny"}:
        _refused(ctx, state)
    else:
        _offered(ctx, state)


@check(RULE, name="tool-filter-composed-shapes", partitions=COMPOSED)
def composed_shapes(ctx: CheckContext) -> None:
    """A child's filter (a preset's, or the request's) with a list given as null beside a real
    one is that list alone; with a key other than allow and deny it is refused, nothing
    created."""
    if ctx.provider is None or Capability.TOOL_FILTER not in ctx.provider.capabilities:
        ctx.skip(RULE, NO_FILTER)
        return
    ctx.cover(RULE, lambda state: composed(ctx, state))
