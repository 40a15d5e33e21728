"""Checks of scope-local tools under the filter (TF-04, TF-05): locals are added after the
filter and no restriction hides them; a local named like a global replaces it in its scope.

A scope gets its own tools in one of the ways the target offers (:mod:`._preset_locals`): a
live registration on an agent (the reference, DSH), or a preset's own tools given to each child
composed from it (``presetTools``: Claude Code's agent definition with an MCP server of its
own). Fixed cases take the ways in turn; drawn cases draw theirs, so each way the target
declares gets cases at every seed.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import Origin

from ...core.gateway import call, text
from ..check import CheckContext, check
from ..partitions import Partition
from ._channels import Channel
from ._channels import observe_view as observe
from ._clauses import said
from ._preset_locals import start_plain, start_with_locals, ways
from ._tool_filter_views import ABC, GLOBAL, LOCAL, build, local_spec
from .tool_filter import scope_st

TF04 = (
    Partition("TF-04", "locals-before-an-allow-list", "locals registered before an allow list "
              "that names none of them"),
    Partition("TF-04", "locals-after-a-deny-list", "locals registered after a deny list that "
              "hides every global"),
    Partition("TF-04", "locals-named-like-globals", "locals that are case twins and extensions "
              "of allowed globals"),
)
#: TF-04's explicit cases: a state, whether its locals come before its restrictions, and the
#: partition it draws.
TF04_FIXED = (
    ({"globals": ["alpha", "bravo"], "restrictions": [{"allow": ["alpha"]}],
      "locals": ["lima"]}, True, "locals-before-an-allow-list"),
    ({"globals": ["alpha", "bravo"], "restrictions": [{"deny": ["alpha", "bravo"]}],
      "locals": ["lima", "mike"]}, False, "locals-after-a-deny-list"),
    ({"globals": ["read", "read_file"], "restrictions": [{"allow": ["read_file"]}],
      "locals": ["Read", "read_file_v2"]}, True, "locals-named-like-globals"),
)


def _carried(way: Channel | None, state: dict[str, Any]) -> bool:
    """Whether ``way`` can give the state's scope: live, anything; a preset, one restriction
    its channel carries."""
    return way is None or (len(state["restrictions"]) <= 1 and
                           all(way.carries(r) for r in state["restrictions"]))


@check("TF-04", name="tool-filter-locals-after-filter", per_provider=False, partitions=TF04)
def locals_after_filter(ctx: CheckContext) -> None:
    """Scope-local tools are added after the global filter: no restriction hides one, whether
    it was registered before or after the restriction, or given by the child's preset beside
    its filter."""
    found = ways(ctx)

    def live(state: dict[str, Any], locals_first: bool) -> frozenset[tuple[str, str]]:
        dep = ctx.deploy(tools=state["globals"])
        agent = dep.root().agent
        steps = [("local", n) for n in state["locals"]]
        installs = [("restriction", r) for r in state["restrictions"]]
        for kind, value in (steps + installs) if locals_first else (installs + steps):
            with ctx.step("TF-04", f"{kind} {value}"):
                if kind == "local":
                    dep.register_tool(local_spec(value), agent)
                else:
                    dep.install_restriction(agent, value)
        return observe(ctx, "TF-04", dep, agent)

    def body(state: dict[str, Any], locals_first: bool, way: Channel | None) -> None:
        if way is None:
            seen, how = live(state, locals_first), \
                f"registered {'before' if locals_first else 'after'}"
        else:
            raw = state["restrictions"][0] if state["restrictions"] else None
            seen = start_with_locals(ctx, "TF-04", way, state["globals"], raw,
                                     state["locals"]).view
            how = "given by the child's preset"
        want = frozenset((n, LOCAL) for n in state["locals"])
        got = frozenset(e for e in seen if e[0] in state["locals"])
        ctx.expect("TF-04", got == want,
                   said("TF-04", f"local tools {state['locals']} under restrictions "
                   f"{state['restrictions']} ({how})"), sorted(want), sorted(got))

    for n, (state, locals_first, partition) in enumerate(TF04_FIXED):
        way = next((w for w in found[n % len(found):] + found if _carried(w, state)), None)
        if way is None and found[0] is not None:
            continue  # no way the target has carries it: its partition stays undrawn
        body(state, locals_first, way)
        ctx.drew("TF-04", partition)
    drawn = st.sampled_from(found).flatmap(lambda way: st.tuples(
        scope_st(restrictions=(1, 3) if way is None else (1, 1), empty=False,
                 local_count=(1, 3)).filter(lambda s: _carried(way, s)),
        st.booleans(), st.just(way)))
    ctx.for_all(drawn, lambda t: body(*t))


TF05 = (
    Partition("TF-05", "shadow-in-its-scope", "a local named like a global: one entry, the "
              "local schema and body, in its scope"),
    Partition("TF-05", "other-scope-keeps-global", "another scope still gets the global"),
    Partition("TF-05", "shadow-of-a-denied-global", "a local named like a global a deny list "
              "hides"),
)
#: The deny lists under which a local ``bravo`` must still stand (docs/rules.md#TF-05).
DENIED_BRAVO = ({"deny": ["bravo"]}, {"deny": ["alpha", "bravo"]})


@check("TF-05", name="tool-filter-local-shadows-global", per_provider=False, partitions=TF05)
def local_shadows_global(ctx: CheckContext) -> None:
    """A local named like a global replaces it in that scope (one entry, the local schema, the
    local body), even where a restriction denied the global; other scopes keep the global.
    Restrictions here are deny lists (what an allow list does to locals is TF-04's)."""
    found = ways(ctx)
    for way in found:
        if way is None:
            _live_cases(ctx)
        else:
            _preset_cases(ctx, way)
    # the rule failed on a fixed case: drawn names add nothing to its verdict, and against a
    # runtime each is two child runs (and a shrink on a failure, many more)
    if any(f.rule == "TF-05" for f in ctx.failures):
        return

    def drawn(t: tuple[dict[str, Any], Channel | None]) -> None:
        state, way = t
        shadows = [n for n in state["locals"] if n in state["globals"]]
        if way is None:
            dep, agent = build(ctx, "TF-05", state)
            seen = observe(ctx, "TF-05", dep, agent)
            other = observe(ctx, "TF-05", dep, dep.create_agent().agent)
        else:
            raw = state["restrictions"][0] if state["restrictions"] else None
            scope = start_with_locals(ctx, "TF-05", way, state["globals"], raw, state["locals"])
            seen, other = scope.view, start_plain(ctx, "TF-05", scope, way).view
        got = frozenset(e for e in seen if e[0] in shadows)
        want = frozenset((n, LOCAL) for n in shadows)
        ctx.expect("TF-05", got == want,
                   said("TF-05", "locals named like globals"), sorted(want), sorted(got))
        keep = frozenset((n, GLOBAL) for n in shadows)
        ctx.expect("TF-05", keep <= other,
                   said("TF-05", "a fresh scope still gets the shadowed globals"),
                   sorted(keep), sorted(other))

    states = scope_st(restrictions=(0, 1), empty=False, shadows=True, local_count=(1, 3),
                      kinds=("deny",)).filter(lambda s: any(n in s["globals"] for n in s["locals"]))
    ctx.for_all(st.tuples(states, st.sampled_from(found)).filter(lambda t: _carried(t[1], t[0])),
                drawn)


def _live_cases(ctx: CheckContext) -> None:
    """TF-05's explicit cases on locals registered live: a second agent's local bravo."""
    dep = ctx.deploy(tools=ABC)
    root = dep.root().agent
    agent = dep.create_agent().agent
    with ctx.step("TF-05", "registering a local bravo in a second agent"):
        dep.register_tool(local_spec("bravo"), agent)
    seen = observe(ctx, "TF-05", dep, agent)
    got = sorted(e for e in seen if e[0] == "bravo")
    ctx.expect("TF-05", got == [("bravo", LOCAL)],
               said("TF-05", "a local bravo over a global bravo"),
               [("bravo", LOCAL)], got)
    schema = next((s for s in dep.tool_schemas(agent) if s.name == "bravo"), None)
    _same_schema(ctx, schema)
    for who, origin in ((agent, Origin.LOCAL), (root, Origin.GLOBAL)):
        ran = len(dep.invocations())
        dep.execute(who, "bravo", {})
        _ran(ctx, dep.invocations()[ran:], who, origin)
    ctx.drew("TF-05", "shadow-in-its-scope")
    root_view = observe(ctx, "TF-05", dep, root)
    ctx.expect("TF-05", ("bravo", GLOBAL) in root_view,
               said("TF-05", "another scope still gets the global"),
               ("bravo", GLOBAL), sorted(root_view))
    ctx.drew("TF-05", "other-scope-keeps-global")
    for raw in DENIED_BRAVO:
        state = {"globals": ABC, "restrictions": [raw], "locals": ["bravo"]}
        dep2, agent2 = build(ctx, "TF-05", state)
        got = sorted(e for e in observe(ctx, "TF-05", dep2, agent2) if e[0] == "bravo")
        _denied(ctx, raw, got)


def _preset_cases(ctx: CheckContext, way: Channel) -> None:
    """TF-05's explicit cases on a preset's own bravo: the child's model calls bravo (the body
    that runs must be the local's); a child of a preset without it keeps the global."""
    replies = (call("bravo", {}, call_id="tck-local-bravo"), text("done"))
    scope = start_with_locals(ctx, "TF-05", way, ABC, None, ["bravo"], replies)
    got = sorted(e for e in scope.view if e[0] == "bravo")
    ctx.expect("TF-05", got == [("bravo", LOCAL)],
               said("TF-05", "a child's own bravo over a global bravo"), [("bravo", LOCAL)], got)
    _same_schema(ctx, scope.schema("bravo"))
    ran = [i for i in scope.dep.invocations() if i.tool == "bravo"]
    _ran(ctx, ran, scope.agent, Origin.LOCAL)
    ctx.drew("TF-05", "shadow-in-its-scope")
    other = start_plain(ctx, "TF-05", scope, way).view
    ctx.expect("TF-05", ("bravo", GLOBAL) in other,
               said("TF-05", "a child of a preset without its own bravo gets the global"),
               ("bravo", GLOBAL), sorted(other))
    ctx.drew("TF-05", "other-scope-keeps-global")
    for raw in DENIED_BRAVO:
        if not way.carries(raw):
            continue
        seen = start_with_locals(ctx, "TF-05", way, ABC, raw, ["bravo"]).view
        _denied(ctx, raw, sorted(e for e in seen if e[0] == "bravo"))


def _same_schema(ctx: CheckContext, schema: Any) -> None:
    want = local_spec("bravo")
    ctx.expect("TF-05", schema is not None and schema.description == want.description
               and schema.parameters.get("properties") == want.parameters["properties"],
               said("TF-05", "the wire schema of a shadowed name is the local tool's"),
               want.model_dump(), schema.model_dump() if schema else None)


def _ran(ctx: CheckContext, ran: list[Any], who: str, origin: Origin) -> None:
    new = [(i.tool, i.origin.value, i.agent) for i in ran]
    ctx.expect("TF-05", new == [("bravo", origin.value, who)],
               said("TF-05", f"executing bravo in "
                    f"{'the shadowing' if origin is Origin.LOCAL else 'another'} scope runs the "
                    f"{origin.value} body"), [("bravo", origin.value, who)], new)


def _denied(ctx: CheckContext, raw: Any, got: list[tuple[str, str]]) -> None:
    ctx.expect("TF-05", got == [("bravo", LOCAL)],
               said("TF-05", f"a local bravo where {raw} filters the global bravo"),
               [("bravo", LOCAL)], got)
    ctx.drew("TF-05", "shadow-of-a-denied-global")
