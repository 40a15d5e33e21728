"""Restriction channels: the ways a target can put a restriction on a scope and show that
scope's view (docs/driver-api.md#dialect), as the TF checks draw from them.

A rule is not applicable only when nothing the target declares can express its situation
(docs/driver-api.md#unsupported-operations): TF-01's case "one restriction admits allow minus
deny" is the same case whether the restriction is installed on a running agent, given to a
child by its preset, to the root by the definition it starts from, or to every scope by
permission rules. So a TF check builds each case as a :class:`Placement` (which restriction goes
through which declared :class:`Channel`), runs it with :func:`put` or :func:`refuse`, and
judges the view against the oracle of the channel's declared grammar (:func:`expected`,
``spec/grammar.py``). Fixed cases run through every placement that can carry them; drawn cases
draw one (:func:`placement_st`), so every declared channel is exercised. Each channel a check
used is named in its run's note (``CheckContext.entry_points``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from hypothesis import strategies as st

from subagent_tck.spec import (
    Capability,
    Edition,
    ErrorCode,
    TckError,
    resolve_view,
)
from subagent_tck.spec.grammar import Grammar, Tool, expand, known

from ...core.dialect import ChannelKind, RestrictionChannel, channel_words, oracle_grammar
from ...core.gateway import call, text
from ...core.protocol import DeploymentConfig, ModelReply, ModelRequest, PresetSpec, ToolSpec
from ...core.target import Deployment
from ...core.unsupported import Unsupported
from ..check import TARGET_FAULTS, CheckContext
from ._clauses import said
from ._composed import deploy_or_refusal
from ._observed import duplicate_names, expect_unchanged, missing_names, snapshot, view_set
from ._starts import composition, marker, start_request

#: The preset a ``root`` placement starts the root agent from.
ROOT_PRESET = "tck-root"

View = frozenset[tuple[str, str]]
#: A registry change after the restriction was put: ("register", tool) or ("unregister", name).
Change = tuple[str, Tool | str]


@dataclass(frozen=True, eq=False)  # one per declared channel: compared by identity
class Channel:
    """One declared channel, ready for the checks: ``provider`` is the provider a ``child``
    channel starts its children on."""

    declared: RestrictionChannel
    edition: Edition
    provider: str | None = None

    @property
    def kind(self) -> ChannelKind:
        return self.declared.kind

    @property
    def grammar(self) -> Grammar:
        return oracle_grammar(self.declared.grammar)

    @property
    def label(self) -> str:
        """How the certificate names it: the kit's words, then the runtime's (``via``)."""
        return channel_words(self.declared, self.edition)

    def carries(self, raw: object) -> bool:
        """Whether a restriction value can go through this channel: each list it gives (not
        null) is one the channel carries."""
        if not isinstance(raw, Mapping):
            return self.kind is ChannelKind.LIVE
        return all(v is None or k in self.declared.lists for k, v in raw.items())


def channels_for(ctx: CheckContext) -> tuple[Channel, ...]:
    """The channels the target declared that this run can use: a ``child`` channel only with
    a provider advertising ``toolFilter`` (the first one)."""
    filtering = next((p.name for p in ctx.providers
                      if Capability.TOOL_FILTER in p.capabilities), None)
    out = []
    for declared in ctx.channels:
        if declared.kind is ChannelKind.CHILD:
            if filtering is not None:
                out.append(Channel(declared, ctx.edition, filtering))
        else:
            out.append(Channel(declared, ctx.edition))
    return tuple(out)


@dataclass(frozen=True)
class Placement:
    """Restrictions put on one scope, each through a channel. ``scope`` is the channel whose
    scope shows them: ``live`` (the root, read with ``view``), ``child`` (the child's
    requests) or ``root`` (the root's requests in a turn)."""

    parts: tuple[tuple[Channel, Any], ...]

    @property
    def scope(self) -> ChannelKind:
        kinds = {c.kind for c, _ in self.parts}
        for kind in (ChannelKind.LIVE, ChannelKind.CHILD):
            if kind in kinds:
                return kind
        return ChannelKind.ROOT

    @property
    def channels(self) -> tuple[Channel, ...]:
        return tuple(dict.fromkeys(c for c, _ in self.parts))

    @property
    def label(self) -> str:
        return " and ".join(c.label for c in self.channels)

    @property
    def restrictions(self) -> tuple[Any, ...]:
        return tuple(raw for _, raw in self.parts)


def placements(channels: Sequence[Channel], restrictions: Sequence[Any]) -> list[Placement]:
    """Every way the ``channels`` can put ``restrictions`` on one scope: all of them live; one
    through a child's or the root's composition and the rest through permission rules; all
    through permission rules."""
    by_kind = {c.kind: c for c in channels}
    rules = list(restrictions)
    out: list[Placement] = []
    live = by_kind.get(ChannelKind.LIVE)
    if live is not None and all(live.carries(r) for r in rules):
        out.append(Placement(tuple((live, r) for r in rules)))
    permission = by_kind.get(ChannelKind.PERMISSION)
    rest_ok = permission is not None and all(permission.carries(r) for r in rules[1:])
    for kind in (ChannelKind.CHILD, ChannelKind.ROOT):
        own = by_kind.get(kind)
        if own is None or not rules or not own.carries(rules[0]):
            continue
        if len(rules) == 1:
            out.append(Placement(((own, rules[0]),)))
        elif rest_ok:
            assert permission is not None
            out.append(Placement(((own, rules[0]), *((permission, r) for r in rules[1:]))))
    if permission is not None and rules and all(permission.carries(r) for r in rules):
        out.append(Placement(tuple((permission, r) for r in rules)))
    return out


T = TypeVar("T")


def next_of(ctx: CheckContext, found: Sequence[T]) -> T:
    """The next of ``found`` (placements or channels) for a fixed case: the check's fixed cases
    take them in turn, so each declared channel gets its share and a slow runtime does not run
    every case through every channel (drawn cases draw theirs)."""
    chosen = found[ctx.placed % len(found)]
    ctx.placed += 1
    return chosen


def placement_st(channels: Sequence[Channel], restrictions: Sequence[Any]
                 ) -> st.SearchStrategy[Placement | None]:
    """One of :func:`placements` (None when no declared channel can carry them)."""
    found = placements(channels, restrictions)
    return st.sampled_from(found) if found else st.just(None)


# --- observing a scope ---------------------------------------------------------------------


def observe_view(ctx: CheckContext, rule: str, dep: Deployment, agent: str | None) -> View:
    """The agent's view as a set; more than one entry of a name fails ``rule``."""
    entries = dep.view(agent)
    _one_each(ctx, rule, [e.name for e in entries], "the view",
              [e.model_dump(mode="json") for e in entries])
    return view_set(entries)


def wire_view(ctx: CheckContext, rule: str, request: ModelRequest) -> View:
    """What a model request offers, as a view (native mode: every tool a global one)."""
    names = [t.name for t in request.tools]
    _one_each(ctx, rule, names, f"a request of {request.agent}", names)
    return frozenset((n, "global") for n in names)


def _one_each(ctx: CheckContext, rule: str, names: list[str], where: str, seen: Any) -> None:
    dup = duplicate_names(type("E", (), {"name": n})() for n in names)
    ctx.expect(rule, not dup, said(rule, f"{where} offers {dup} more than once: one entry per "
                                         "name"), "one entry per name", seen)


def tool_specs(tools: Iterable[Tool]) -> list[ToolSpec]:
    """The driver's tools of ``tools``; ``server`` set only where a tool has one."""
    return [ToolSpec(name=t.name, description=f"tool {t.name}", server=t.server)
            if t.server is not None else ToolSpec(name=t.name, description=f"tool {t.name}")
            for t in tools]


def after(tools: Sequence[Tool], changes: Sequence[Change]) -> list[Tool]:
    """The registry once ``changes`` are made, in registration order."""
    now = list(tools)
    for op, value in changes:
        if op == "register":
            assert isinstance(value, Tool)
            now.append(value)
        else:
            now = [t for t in now if t.name != value]
    return now


def expected_view_of(placement: Placement, tools: Sequence[Tool], changes: Sequence[Change] = ()
             ) -> View:
    """The oracle's view of the placement's scope once ``changes`` are made: each restriction
    read under its channel's grammar over the registry as it is then (docs/rules.md#TF-02:
    every restriction must admit a tool)."""
    now = after(tools, changes)
    restrictions = [expand(raw, channel.grammar, now) for channel, raw in placement.parts]
    return view_set(resolve_view([t.name for t in now], restrictions, ()))


def judge_tools(ctx: CheckContext, rule: str, tools: Sequence[Tool], placement: Placement,
                what: str, changes: Sequence[Change] = ()) -> None:
    """The view of ``placement``'s scope over ``tools`` (once ``changes`` are made) against the
    oracle of its channels' grammars."""
    seen = put(ctx, rule, placement, tools, changes)
    want = expected_view_of(placement, tools, changes)
    ctx.expect(rule, seen == want, said(rule, f"{what}, through {placement.label}"),
               sorted(want), sorted(seen))


def offending(channel: Channel, raw: Mapping[str, Any], tools: Sequence[Tool]) -> tuple[str, ...]:
    """The entries of ``raw`` the channel's grammar does not know over ``tools`` (TF-08)."""
    grammar = channel.grammar
    out: list[str] = []
    for key in ("allow", "deny"):
        for entry in raw.get(key) or ():
            if not known(str(entry), grammar, tools) and entry not in out:
                out.append(entry)
    return tuple(out)


def inexpressible(ctx: CheckContext, what: str) -> NoReturn:
    """Stop the check: none of its cases can be built through the declared channels, so its
    rules not failed are not applicable, as a situation the target cannot express
    (docs/driver-api.md#unsupported-operations)."""
    declared = ", ".join(c.label for c in channels_for(ctx)) or "none this run can use"
    raise Unsupported("restriction channels", what, f"the target declares {declared}")


def used(ctx: CheckContext, placement: Placement) -> None:
    for channel in placement.channels:
        if channel.label not in ctx.entry_points:
            ctx.entry_points.append(channel.label)


def placed_config(ctx: CheckContext, placement: Placement, tools: Sequence[Tool]
            ) -> tuple[DeploymentConfig, dict[str, Any]]:
    """The deployment of a placement, and the start fields of its child (if any)."""
    presets: list[PresetSpec] = []
    fields: dict[str, Any] = {"edition": ctx.edition, "tools": tool_specs(tools)}
    start: dict[str, Any] = {}
    permissions = [raw for c, raw in placement.parts if c.kind is ChannelKind.PERMISSION]
    for channel, raw in placement.parts:
        if channel.kind is ChannelKind.CHILD:
            comp = composition(ctx.edition, {"toolFilter": raw})
            presets += comp.presets
            start = comp.fields
        elif channel.kind is ChannelKind.ROOT:
            presets.append(PresetSpec(name=ROOT_PRESET, toolFilter=raw))
            fields["rootPreset"] = ROOT_PRESET
    if permissions:
        fields["permissions"] = permissions
    if presets:
        fields["presets"] = presets
    return DeploymentConfig(**fields), start


def _apply(dep: Deployment, changes: Sequence[Change]) -> None:
    for op, value in changes:
        if op == "register":
            assert isinstance(value, Tool)
            dep.register_tool(tool_specs([value])[0])
        else:
            assert isinstance(value, str)
            dep.unregister_tool(value)


@dataclass
class ScopeTurn:
    """The script of the observed scope's turn: with changes, its first reply makes them and
    calls a tool (so that the scope asks again); the request after them is the one observed."""

    dep: Deployment
    changes: Sequence[Change]
    taken: set[str] = field(default_factory=set)

    def first(self, request: ModelRequest) -> ModelReply:
        _apply(self.dep, self.changes)
        gone = {v for op, v in self.changes if op == "unregister"}
        offered = [t.name for t in request.tools if t.name not in gone]
        name = offered[0] if offered else _unused(self.taken)
        return call(name, call_id="tck-channel")


def _unused(taken: set[str]) -> str:
    name, n = "zulu", 1
    while name in taken:
        name, n = f"zulu_{n}", n + 1
    return name


def put(ctx: CheckContext, rule: str, placement: Placement, tools: Sequence[Tool],
        changes: Sequence[Change] = ()) -> View:
    """Deploy ``tools``, put the placement's restrictions on its scope, make ``changes`` after
    them and read the scope's view: a live scope with ``view``; a child's or the root's from the
    request it makes after the changes (made while it runs, between two of its requests)."""
    used(ctx, placement)
    cfg, start = placed_config(ctx, placement, tools)
    words = f"through {placement.label}"
    with ctx.step(rule, f"deploying {placement.restrictions} {words}"):
        dep = ctx.deploy(cfg)
    root = dep.root().agent
    if placement.scope is ChannelKind.LIVE:
        for raw in placement.restrictions:
            with ctx.step(rule, f"installing the valid restriction {raw}"):
                dep.install_restriction(root, raw)
        with ctx.step(rule, f"changing the registry: {_changes(changes)}"):
            _apply(dep, changes)
        return observe_view(ctx, rule, dep, root)
    taken = {t.name for t in after(tools, changes)} | {t.name for t in tools}
    turn = ScopeTurn(dep, changes, taken)
    replies = [turn.first, text("done")] if changes else [text("done")]
    mark = ctx.gateway.script(marker(ctx, "tf-channel"), *replies)
    with ctx.step(rule, f"running the scope of {placement.restrictions} {words}"):
        if placement.scope is ChannelKind.CHILD:
            channel = next(c for c in placement.channels if c.kind is ChannelKind.CHILD)
            result = dep.start(start_request(root, channel.provider, f"task {mark}", start))
            agent = result.agent
        else:
            result = dep.run_turn(root, f"task {mark}")
            agent = root
    return request_view(ctx, rule, agent, 1 if changes else 0,
                        f"the scope of {placement.restrictions} {words}",
                        result.stopReason.value, " after the registry changed" if changes else "")


def request_view(ctx: CheckContext, rule: str, agent: str, index: int, what: str,
                 stop_reason: str | None = None, after: str = "") -> View:
    """What the ``index``-th request ``agent`` made offers (``-1``: its last); without one,
    ``rule`` fails (``what`` made no request ``after``) and the check stops."""
    requests = ctx.gateway.requests(agent)
    if not -len(requests) <= index < len(requests):
        observed: dict[str, Any] = {"requests": len(requests)}
        if stop_reason is not None:
            observed["stopReason"] = stop_reason
        ctx.fail(rule, said(rule, f"{what} made no request{after}"),
                 f"{max(index + 1, 1)} request(s)", observed)
        ctx.abort()
    return wire_view(ctx, rule, requests[index])


def _changes(changes: Sequence[Change]) -> str:
    return ", ".join(f"{op} {v.name if isinstance(v, Tool) else v}" for op, v in changes) or \
        "none"


def refuse(ctx: CheckContext, rule: str, channel: Channel, tools: Sequence[Tool], raw: Any,
           offenders: tuple[str, ...] = ()) -> None:
    """``raw`` put through ``channel`` must be refused with INVALID_TOOL_FILTER listing
    ``offenders``, by the operation that carries it (docs/driver-api.md#dialect): the
    installation (live), the deployment that declares it, or the start or turn that composes
    it; nothing may change."""
    placement = Placement(((channel, raw),))
    used(ctx, placement)
    what = f"{raw!r} through {channel.label}"
    cfg, start = placed_config(ctx, placement, tools)
    if channel.kind is ChannelKind.LIVE:
        dep = ctx.deploy(cfg)
        refused(ctx, rule, dep, dep.root().agent, raw, offenders)
        return
    deployed = deploy_or_refusal(ctx, cfg)
    if isinstance(deployed, TckError):
        if deployed.code in TARGET_FAULTS:  # a broken connection is no refusal to judge
            ctx.target_fault(rule, f"deploying {what}", deployed)
        _judge_refusal(ctx, rule, deployed, what + " (refused with the deployment)", offenders)
        return
    dep, agent = deployed, deployed.root().agent
    mark = ctx.gateway.script(marker(ctx, "tf-refused"), text("done"), required=False)
    if channel.kind is ChannelKind.CHILD:
        request = start_request(agent, channel.provider, f"task {mark}", start)
        action: Any = lambda: dep.start(request)  # noqa: E731
    else:
        action = lambda: dep.run_turn(agent, f"task {mark}")  # noqa: E731
    before = snapshot(dep, ctx.gateway)
    exc = ctx.expect_error(rule, ErrorCode.INVALID_TOOL_FILTER, action, said(rule, what))
    _lists(ctx, rule, exc, what, offenders)
    expect_unchanged(ctx, rule, before, dep, f"the refused {what}")


def refused(ctx: CheckContext, rule: str, dep: Deployment, agent: str, raw: object,
            offenders: tuple[str, ...] = ()) -> None:
    """``raw`` installed live on ``agent`` must be refused with INVALID_TOOL_FILTER listing
    ``offenders``, nothing installed (the agent's view and the global view as they were) and
    nothing else changed."""
    views = {a: observe_view(ctx, rule, dep, a) for a in (agent, None)}
    before = snapshot(dep, ctx.gateway)
    exc = ctx.expect_error(rule, ErrorCode.INVALID_TOOL_FILTER,
                           lambda: dep.install_restriction(agent, raw),
                           said(rule, f"installing the restriction {raw!r}"))
    _lists(ctx, rule, exc, repr(raw), offenders)
    after = {a: observe_view(ctx, rule, dep, a) for a in (agent, None)}
    ctx.expect(rule, after == views, said(rule, f"the refused restriction {raw!r} changed a view"),
               {str(k): sorted(v) for k, v in views.items()},
               {str(k): sorted(v) for k, v in after.items()})
    expect_unchanged(ctx, rule, before, dep, f"the refused restriction {raw!r}")


def _judge_refusal(ctx: CheckContext, rule: str, exc: TckError, what: str,
                   offenders: tuple[str, ...]) -> None:
    """A refusal already caught (the deployment's): its code, and the names it lists."""
    ctx.expect(rule, exc.code is ErrorCode.INVALID_TOOL_FILTER,
               said(rule, f"{what}: refused with {exc.code.value}"),
               ErrorCode.INVALID_TOOL_FILTER.value, exc.to_json())
    _lists(ctx, rule, exc, what, offenders)


def _lists(ctx: CheckContext, rule: str, exc: TckError | None, what: str,
           offenders: tuple[str, ...]) -> None:
    """A refusal names every offending entry (docs/rules.md#TF-08)."""
    if exc is None or not offenders:
        return
    missing = missing_names(exc, offenders)
    ctx.expect(rule, not missing, said(rule, f"the error for {what} does not list {missing}"),
               list(offenders), exc.to_json())
