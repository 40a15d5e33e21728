"""Checks of the tool filter, part two: the one resolver (TF-12), scope isolation (TF-13),
dispose (TF-14) and copied values (TF-15); the live registry (TF-09..TF-11) is
:mod:`.tool_filter_live`, guidance that follows visibility (TF-16) :mod:`.tool_filter_guidance`.

As in :mod:`.tool_filter`, expectations come from the spec oracle, views are compared as sets,
and drawn states keep other TF rules out of the outcome: the live-registry checks use
single-list restrictions, TF-12 and TF-14 compare a target with itself (schemas, lookup,
execution and SDK against its own view; a disposed scope against a scope that never had the
restriction), so only the rule at hand decides.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    RUN_CODE,
    ErrorCode,
    Origin,
    PresentationMode,
    StopReason,
    TckError,
    sdk_binding_names,
    wire_tool_names,
)
from subagent_tck.spec import ViewEntry as SpecEntry

from ...core.dialect import ChannelKind
from ...core.gateway import call, text
from ...core.protocol import StartRequest, ToolSpec
from ...core.target import Deployment, Target
from ..check import CheckContext, check
from ..partitions import Partition
from ._channels import (
    Placement,
    channels_for,
    inexpressible,
    used,
)
from ._channels import observe_view as observe
from ._clauses import said
from ._isolation_composed import PARTITION, composed_drawn, composed_isolation
from ._nonce import nonce
from ._observed import oracle_view
from ._starts import marker
from ._tool_filter_views import ABC, MODES, build
from .tool_filter import scope_st

# --- TF-12: one resolver ------------------------------------------------------------------


def resolver(ctx: CheckContext, state: dict[str, Any]) -> None:
    dep, agent = build(ctx, "TF-12", state)
    mode = state["mode"]
    entries = dep.view(agent)
    view = [SpecEntry(e.name, Origin(e.origin)) for e in entries]
    names = {e.name for e in entries}
    schemas = sorted(s.name for s in dep.tool_schemas(agent))
    want = sorted(wire_tool_names(view, mode))
    ctx.expect("TF-12", schemas == want,
               said("TF-12", f"wire schemas against the view in mode {mode.value}"),
               want, schemas)
    sdk, want_sdk = sorted(dep.sdk_bindings(agent)), sorted(sdk_binding_names(view, mode))
    ctx.expect("TF-12", sdk == want_sdk,
               said("TF-12", "SDK bindings against the view"), want_sdk, sdk)
    for entry in entries:
        found = dep.lookup(agent, entry.name)
        ctx.expect("TF-12", found is not None and found.origin == entry.origin,
                   said("TF-12", f"looking up the visible {entry.name}"),
                   entry.model_dump(mode="json"),
                   found.model_dump(mode="json") if found else None)
    taken = {*state["globals"], *state.get("locals", ()), *names}
    hidden = [n for n in state["globals"] if n not in names] + [unused(taken)]
    for name in hidden:
        ctx.expect("TF-12", dep.lookup(agent, name) is None,
                   said("TF-12", f"looking up the hidden {name}"),
                   None, dep.lookup(agent, name))
        ran = len(dep.invocations())
        try:
            result = dep.execute(agent, name, {})
            observed: Any = result.model_dump(mode="json")
            ok = result.isError and result.code == ErrorCode.UNKNOWN_TOOL.value
        except TckError as exc:  # a refusal with the code is the same answer over the driver
            observed, ok = exc.to_json(), exc.code is ErrorCode.UNKNOWN_TOOL
        bodies = [i.model_dump(mode="json") for i in dep.invocations()[ran:]]
        ctx.expect("TF-12", ok and not bodies, said("TF-12", f"executing the hidden {name}"),
                   "an UNKNOWN_TOOL error, no body run", {"result": observed, "ran": bodies})
    for entry in entries:
        # In ptc mode only run_code is on the wire: whether a direct call to an SDK-only tool
        # runs is not fixed by TF-12 (a runtime may refuse it as not offered), so only tools
        # the wire offers are executed directly here.
        if entry.name == RUN_CODE or entry.name not in want:
            continue
        ran = len(dep.invocations())
        dep.execute(agent, entry.name, {})
        new = [(i.tool, i.origin.value) for i in dep.invocations()[ran:]]
        want_run = [(entry.name, entry.origin.value)]
        ctx.expect("TF-12", new == want_run,
                   said("TF-12", f"executing the visible {entry.name}"), want_run, new)
        break
    # The SDK follows the registry as the view does: bind a global registered now.
    fresh = unused(taken | set(hidden))
    with ctx.step("TF-12", f"registering the global {fresh} after reading the bindings"):
        dep.register_tool(ToolSpec(name=fresh, description=f"tool {fresh}"))
    view = [SpecEntry(e.name, Origin(e.origin)) for e in dep.view(agent)]
    sdk, want_sdk = sorted(dep.sdk_bindings(agent)), sorted(sdk_binding_names(view, mode))
    ctx.expect("TF-12", sdk == want_sdk,
               said("TF-12", f"SDK bindings against the view once {fresh} is "
               "registered"), want_sdk, sdk)
    forged(ctx, dep, agent, hidden[0])


def unused(taken: set[str]) -> str:
    """A name no tool of the scope has (the ghost a forged call names)."""
    name, n = "zulu", 1
    while name in taken:
        name, n = f"zulu_{n}", n + 1
    return name


def forged(ctx: CheckContext, dep: Deployment, agent: str, name: str) -> None:
    """The agent's model forges a call to ``name``: an error result, no body, the turn goes on."""
    mark = marker(ctx, "tf-forged")
    ctx.gateway.script(mark, call(name, call_id="tf-forged"), text(f"done {nonce(ctx, mark)}"))
    ran = len(dep.invocations())
    with ctx.step("TF-12", f"running a turn whose model forges a call to {name}"):
        result = dep.run_turn(agent, f"use the tools {mark}")
    codes = [(r.isError, r.code) for r in result.toolResults]
    new = [i.model_dump(mode="json") for i in dep.invocations()[ran:] if i.tool == name]
    later = ctx.gateway.requests_for(mark)[1:]
    answered = any(m.role == "tool" and m.toolCallId == "tf-forged"
                   for r in later for m in r.messages)
    ctx.expect("TF-12", (True, ErrorCode.UNKNOWN_TOOL.value) in codes and not new and answered
               and result.stopReason is StopReason.COMPLETED,
               said("TF-12", f"a forged model call to {name}"),
               "an UNKNOWN_TOOL error result, answered to the model, no body run, the turn "
               "completed",
               {"toolResults": codes, "invocations": new, "answered": answered,
                "stopReason": result.stopReason.value})


TF12 = tuple(Partition("TF-12", f"{m.value}-mode", f"schemas, lookup, execution, SDK and a "
                       f"forged call against the view in {m.value} mode") for m in MODES)


@check("TF-12", name="tool-filter-one-resolver", per_provider=False, partitions=TF12)
def one_resolver(ctx: CheckContext) -> None:
    """Wire schemas, lookup, execution and SDK bindings are one set (the view, presented per
    mode); a name outside it cannot be looked up or executed, directly or by a forged model
    call, and the turn goes on."""
    for mode in MODES:
        resolver(ctx, {"globals": ABC, "restrictions": [{"deny": ["bravo"]}],
                       "locals": ["charlie", "lima"], "mode": mode})
        ctx.drew("TF-12", f"{mode.value}-mode")
    ctx.for_all(scope_st(shadows=True, modes=MODES),
                lambda s: resolver(ctx, s))


# --- TF-13, TF-14: isolation and dispose --------------------------------------------------


def isolation(ctx: CheckContext, state: dict[str, Any]) -> None:
    dep = ctx.deploy(tools=state["globals"], mode=state["mode"])
    root, a, b = dep.root().agent, dep.create_agent().agent, dep.create_agent().agent
    with ctx.step("TF-13", "setting presentation modes"):
        for agent in (root, a, b):
            dep.set_mode(agent, state["mode"])
    others = (None, root, b)
    before = {who: observe(ctx, "TF-13", dep, who) for who in others}
    with ctx.step("TF-13", "installing locals and restrictions in one scope"):
        for name in state["locals"]:
            dep.register_tool(ToolSpec(name=name, description=f"local {name}"), a)
        for raw in state["restrictions"]:
            dep.install_restriction(a, raw)
    for who in others:
        seen = observe(ctx, "TF-13", dep, who)
        ctx.expect("TF-13", seen == before[who],
                   said("TF-13", f"the view of {who or 'the registry'} after "
                   f"another scope installed {state['restrictions']} and locals "
                   f"{state['locals']}"), sorted(before[who]), sorted(seen))


def parent_and_child(ctx: CheckContext) -> None:
    """A child's installs leave its parent's view alone, and the parent's leave the child's,
    for a child of every provider the target advertises (a plain start: no control asked)."""
    for info in ctx.providers:
        dep = ctx.deploy(tools=ABC)
        parent = dep.create_agent().agent
        with ctx.step("TF-13", f"starting a plain child on {info.name} and reaching it"):
            result = dep.start(StartRequest(parent=parent, provider=info.name,
                                            prompt="plain child"))
            child = (result.agent if result.agent in dep.agents()
                     else dep.resume(result.session).agent)
        mine = observe(ctx, "TF-13", dep, parent)
        with ctx.step("TF-13", "installing in the child's scope"):
            dep.install_restriction(child, {"allow": ["alpha"]})
            dep.register_tool(ToolSpec(name="lima", description="local lima"), child)
        seen = observe(ctx, "TF-13", dep, parent)
        ctx.expect("TF-13", seen == mine,
                   said("TF-13", f"the parent's view after its {info.name} child "
                   "installed a restriction and a local"), sorted(mine), sorted(seen))
        theirs = observe(ctx, "TF-13", dep, child)
        with ctx.step("TF-13", "installing in the parent's scope"):
            dep.install_restriction(parent, {"deny": ["alpha", "bravo"]})
            dep.register_tool(ToolSpec(name="mike", description="local mike"), parent)
        seen = observe(ctx, "TF-13", dep, child)
        ctx.expect("TF-13", seen == theirs,
                   said("TF-13", f"the view of a {info.name} child after its parent "
                   "installed a restriction and a local"), sorted(theirs), sorted(seen))


TF13 = (
    Partition("TF-13", "sibling-root-and-registry", "a scope's installs seen from a sibling, the "
              "root and the global view"),
    Partition("TF-13", "parent-and-child", "a child's installs seen from its parent and the "
              "parent's from the child, for a child of every provider"),
    Partition("TF-13", PARTITION, "a child composed with a filter through the child channel, "
              "seen from the root's next request and a plain sibling's first"),
)


@check("TF-13", name="tool-filter-scope-isolation", per_provider=False, partitions=TF13)
def scope_isolation(ctx: CheckContext) -> None:
    """What one scope installs changes no other scope's view: not a sibling's, not the root's,
    not the global view, not a parent's or a child's. Its parts a target cannot set up (live
    restrictions, scope-local tools, top-level agents) are judged without it; a child composed
    through the child channel is the part such a target has."""
    with ctx.expressible("TF-13", "sibling-root-and-registry"):  # scope-local tools, modes
        isolation(ctx, {"globals": ABC, "restrictions": [{"allow": []}],
                        "locals": ["alpha", "lima"], "mode": PresentationMode.BOTH})
        ctx.drew("TF-13", "sibling-root-and-registry")
    with ctx.expressible("TF-13", "parent-and-child"):  # top-level agents, live restrictions
        parent_and_child(ctx)
        ctx.drew("TF-13", "parent-and-child")
    composed_isolation(ctx, ABC, {"allow": ["alpha"], "deny": ["bravo"]})
    composed_drawn(ctx)
    with ctx.expressible("TF-13"):
        ctx.for_all(scope_st(shadows=True, modes=MODES),
                    lambda s: isolation(ctx, s))


def dispose(ctx: CheckContext, state: dict[str, Any], order: list[int]) -> None:
    dep = ctx.deploy(tools=state["globals"])
    agent = dep.root().agent
    rules = state["restrictions"]
    with ctx.step("TF-14", f"installing {rules}"):
        handles = [dep.install_restriction(agent, raw) for raw in rules]
    left = set(range(len(rules)))
    for i in order:
        with ctx.step("TF-14", f"disposing {rules[i]}"):
            dep.dispose_restriction(agent, handles[i])
        left.discard(i)
        control = dep.create_agent().agent
        with ctx.step("TF-14", "installing the remaining restrictions in a fresh scope"):
            for j in sorted(left):
                dep.install_restriction(control, rules[j])
        seen, want = observe(ctx, "TF-14", dep, agent), observe(ctx, "TF-14", dep, control)
        ctx.expect("TF-14", seen == want,
                   said("TF-14", f"after disposing {rules[i]}: the view of a scope "
                   f"that only ever had {[rules[j] for j in sorted(left)]}"), sorted(want),
                   sorted(seen))
        with ctx.step("TF-14", f"disposing {rules[i]} a second time"):
            dep.dispose_restriction(agent, handles[i])
        again = observe(ctx, "TF-14", dep, agent)
        ctx.expect("TF-14", again == seen,
                   said("TF-14", "a second dispose changed the view"), sorted(seen),
                   sorted(again))
    # Dispose gives back a live view: a registry change after the disposes reaches the scope as
    # it reaches a scope made before the change (so a registry that is not live at all fails
    # both alike, and TF-09..11 judge that).
    control = dep.create_agent().agent
    with ctx.step("TF-14", "installing the remaining restrictions in a fresh scope"):
        for j in sorted(left):
            dep.install_restriction(control, rules[j])
    fresh, gone = unused(set(state["globals"])), state["globals"][0]
    with ctx.step("TF-14", f"registering {fresh} and unregistering {gone} after the disposes"):
        dep.register_tool(ToolSpec(name=fresh, description=f"tool {fresh}"))
        dep.unregister_tool(gone)
    seen, want = observe(ctx, "TF-14", dep, agent), observe(ctx, "TF-14", dep, control)
    ctx.expect("TF-14", seen == want,
               said("TF-14", f"{fresh} registered and {gone} unregistered after the "
               "disposes: the view of a scope made before that change"), sorted(want),
               sorted(seen))


TF14 = (Partition("TF-14", "three-disposed-out-of-order", "three restrictions disposed out of "
                  "order, each twice, then a registry change"),)


@check("TF-14", name="tool-filter-lift-on-dispose", per_provider=False, partitions=TF14)
def lift_on_dispose(ctx: CheckContext) -> None:
    """Disposing a restriction lifts exactly that one; disposing it again is harmless. Only a
    live restriction can be lifted (docs/driver-api.md#dialect)."""
    live_ones = [c for c in channels_for(ctx) if c.kind is ChannelKind.LIVE]
    if not live_ones:
        inexpressible(ctx, "lifting a restriction, which only a live one (dispose-restriction) "
                      "can be")
    used(ctx, Placement(((live_ones[0], {}),)))
    dispose(ctx, {"globals": ABC, "restrictions": [{"allow": ["alpha", "bravo"]},
                                                   {"deny": ["bravo"]}, {"deny": ["alpha"]}]},
            [1, 0, 2])
    ctx.drew("TF-14", "three-disposed-out-of-order")
    drawn = scope_st(restrictions=(1, 3))
    ctx.for_all(drawn.flatmap(lambda s: st.tuples(st.just(s), st.permutations(
        range(len(s["restrictions"]))))), lambda t: dispose(ctx, t[0], list(t[1])))


# --- TF-15 (SHOULD) ----------------------------------------------------------------------


def in_process(target: Target) -> bool:
    """Whether values reach the target as the caller's own Python objects (no wire between):
    a target may say so with an ``in_process`` attribute; the kit's wire transports live in
    ``conformance`` modules named after HTTP."""
    said = getattr(target, "in_process", None)
    if isinstance(said, bool):
        return said
    module = type(target).__module__
    return not (module.startswith("subagent_tck.conformance") and "http" in module)


TF15 = (Partition("TF-15", "lists-and-object-changed", "the caller's allow and deny lists and "
                  "the filter object changed after install"),)


@check("TF-15", name="tool-filter-values-copied", per_provider=False, partitions=TF15)
def values_copied(ctx: CheckContext) -> None:
    """Changing the caller's lists (and dict) after a restriction is installed changes
    nothing."""
    if not in_process(ctx.target):
        ctx.skip("TF-15", "values cross a wire to this target: the caller's lists are copied "
                 "by serialization")
        return
    dep = ctx.deploy(tools=ABC)
    a, b = dep.create_agent().agent, dep.create_agent().agent
    allow, deny = ["alpha"], ["bravo"]
    first: dict[str, Any] = {"allow": allow}
    with ctx.step("TF-15", "installing restrictions"):
        dep.install_restriction(a, first)
        dep.install_restriction(b, {"deny": deny})
    allow.extend(["bravo", "charlie"])
    first["deny"] = ["alpha"]
    deny.clear()
    for who, raw in ((a, {"allow": ["alpha"]}), (b, {"deny": ["bravo"]})):
        seen, want = observe(ctx, "TF-15", dep, who), oracle_view(ABC, [raw])
        ctx.expect("TF-15", seen == want,
                   said("TF-15", f"the caller changed its lists after installing "
                   f"{raw}"), sorted(want), sorted(seen))
    ctx.drew("TF-15", "lists-and-object-changed")
