"""TF-16: a prompt section that guides a tool follows that tool's visibility
(docs/rules.md#TF-16).

A hand-written case (the fixed names of :data:`._tool_filter_views.ABC`) runs first; then every
partition gets drawn cases at every seed: tool names of every shape (:func:`._names.tool_names`,
case twins, prefixes and extensions among them), the guided one drawn among them, texts and
section names drawn, and the restriction that hides or keeps it drawn per partition. One
partition keeps a *relative* of the guided tool visible (another case of its name, a prefix, an
extension) while the guided tool is hidden: a target that matches a section to its tool loosely
keeps the section there.

A target without live restrictions whose runtime has guidance of its own
(``TargetInfo.toolGuidance``, docs/driver-api.md#dialect: Claude Code's MCP server
instructions) is judged through its restriction channels instead: the guided tool alone on a
server of its own, the section given as that server's guidance, the tool hidden or kept by a
child's preset, the root's preset or permission rules, and every request of the scope read
(system text and messages: a runtime may carry guidance in either). There only the guiding
section is judged: a section that guides nothing is the adapter's text, not the runtime's. A
restricted case is judged only where an unrestricted scope of its kind (a plain child, the
root) is given the guidance, and then both ways: absent where the tool is hidden, present where
the restriction keeps it (a runtime that gives no filtered agent any guidance passes no hidden
case by accident); where no such scope is given it, TF-16 is not applicable.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ...core.dialect import ChannelKind
from ...core.gateway import text
from ...core.protocol import DeploymentConfig, SectionSpec, ToolSpec
from ...core.target import Deployment
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ._channels import (
    Channel,
    Placement,
    ScopeTurn,
    channels_for,
    next_of,
    placed_config,
    placements,
    used,
)
from ._channels import observe_view as observe
from ._clauses import said
from ._names import relatives, tool_names
from ._nonce import nonce
from ._observed import request_text
from ._starts import marker, start_request
from ._tool_filter_views import ABC, GLOBAL

#: The restriction each partition puts on the scope (the hand-written case's, over ABC).
LABELS = ("unrestricted", "denied", "not allowed", "allowed")
HANDWRITTEN = {"denied": {"deny": ["bravo"]}, "not allowed": {"allow": ["alpha"]},
               "allowed": {"allow": ["bravo"]}}
RELATIVE = "guided-tool-hidden-relative-visible"

_WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=2, max_size=9)


def _partition(label: str) -> str:
    return f"guided-tool-{label.replace(' ', '-')}"


def _some(draw: Any, pool: list[str], min_size: int) -> list[str]:
    if not pool:
        return []
    picked: list[str] = draw(st.lists(st.sampled_from(pool), unique=True, min_size=min_size,
                                      max_size=len(pool)))
    return picked


@st.composite
def _texts(draw: Any, guided: str, other: str) -> dict[str, Any]:
    """Two sections: one guiding ``guided``, one unrelated that names both tools (prose that
    mentions a tool is not guidance: it stays). Names and words drawn; neither text inside the
    other."""
    words = draw(st.lists(_WORD, min_size=2, max_size=6))
    cut = draw(st.integers(0, len(words)))
    guide = " ".join([*words[:cut], guided, *words[cut:]])
    prose = " ".join([draw(_WORD), other, draw(_WORD), guided, draw(_WORD)])
    names = draw(st.lists(_WORD, min_size=2, max_size=2, unique=True))
    if guide in prose or prose in guide:
        prose = f"{prose} {draw(_WORD)}{draw(_WORD)}"
    return {"guide": SectionSpec(name=f"guide-{names[0]}", text=guide, guides=guided),
            "prose": SectionSpec(name=f"notes-{names[1]}", text=prose)}


def _case_st(label: str) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def case(draw: Any) -> dict[str, Any]:
        tools: list[str] = draw(tool_names(min_size=2, max_size=5))
        guided = tools[draw(st.integers(0, len(tools) - 1))]
        others = [n for n in tools if n != guided]
        raw: dict[str, Any] | None = {
            "unrestricted": None,
            "denied": {"deny": [guided, *_some(draw, others, 0)]},
            "not allowed": {"allow": _some(draw, others, 1)},
            "allowed": {"allow": [guided, *_some(draw, others, 0)]},
        }[label]
        return {"label": label, "tools": tools, "restriction": raw,
                **draw(_texts(guided, others[draw(st.integers(0, len(others) - 1))]))}
    return case()


@st.composite
def _relative_st(draw: Any) -> dict[str, Any]:
    """The guided tool hidden by a deny or an allow list, a relative of its name visible."""
    tools: list[str] = draw(tool_names(min_size=1, max_size=4))
    guided = tools[0]
    kin = [r for r in relatives(guided) if r not in tools]
    relative = draw(st.sampled_from(kin)) if kin else f"{guided}_"
    tools = [*tools, relative]
    others = [n for n in tools if n != guided]
    raw = draw(st.sampled_from([{"deny": [guided]}, {"allow": [relative, *others[:-1]]}]))
    return {"label": "hidden beside a relative", "tools": tools, "restriction": raw,
            **draw(_texts(guided, relative))}


TF16 = (*(Partition("TF-16", _partition(label), f"the tool a section guides is {label} in the "
                    "scope", cases=_case_st(label)) for label in LABELS),
        Partition("TF-16", RELATIVE, "the guided tool hidden while a tool whose name is a "
                  "relative of it (another case, a prefix, an extension) stays visible",
                  cases=_relative_st()))


def judge(ctx: CheckContext, dep: Deployment, agent: str, label: str, guide: SectionSpec,
          prose: SectionSpec) -> None:
    """The agent's sections and its next request's system text: ``guide`` there exactly where
    the tool it guides is in the agent's view, ``prose`` there as written."""
    assert guide.guides is not None
    visible = (guide.guides, GLOBAL) in observe(ctx, "TF-16", dep, agent)
    sections = {s.name: s.text for s in dep.prompt(agent)}
    mark = ctx.gateway.script(marker(ctx, "tf-guide"), text(f"noted {nonce(ctx, label)}"))
    dep.run_turn(agent, f"hello {mark}")
    sent = ctx.gateway.requests(agent)
    system = sent[-1].system if sent else ""
    want_guide = guide.text if visible else None
    state = "visible" if visible else "hidden"
    ctx.expect("TF-16", sections.get(guide.name) == want_guide
               and (guide.text in system) == visible,
               said("TF-16", f"{guide.guides} is {label} ({state}): the section guiding it "
                    "must be left out of the prompt where it is hidden and kept where it is "
                    "visible"),
               want_guide, {"section": sections.get(guide.name), "system": system})
    ctx.expect("TF-16", sections.get(prose.name) == prose.text and prose.text in system,
               said("TF-16", f"{guide.guides} is {label}: unrelated prose must stay untouched"),
               prose.text, {"section": sections.get(prose.name), "system": system})


def _drawn(ctx: CheckContext, case: dict[str, Any]) -> None:
    dep = ctx.deploy(tools=case["tools"], sections=[case["guide"], case["prose"]])
    agent = dep.create_agent().agent
    if case["restriction"] is not None:
        with ctx.step("TF-16", f"installing {case['restriction']}"):
            dep.install_restriction(agent, case["restriction"])
    judge(ctx, dep, agent, case["label"], case["guide"], case["prose"])


@check("TF-16", name="tool-filter-guidance-follows-visibility", per_provider=False,
       partitions=TF16)
def guidance_follows_visibility(ctx: CheckContext) -> None:
    """A section that guides a tool is left out where the tool is hidden; unrelated prose is
    kept as it is."""
    guide = SectionSpec(name="guide:bravo", text="GUIDE: call bravo for lookups.", guides="bravo")
    prose = SectionSpec(name="notes", text="NOTES: bravo and alpha exist.")
    channels = channels_for(ctx)
    if not any(c.kind is ChannelKind.LIVE for c in channels):
        through_channels(ctx, channels, guide)
        return
    dep = ctx.deploy(tools=ABC, sections=[guide, prose])
    agents = {"unrestricted": dep.root().agent}
    for label, raw in HANDWRITTEN.items():
        agents[label] = dep.create_agent().agent
        with ctx.step("TF-16", f"installing {raw}"):
            dep.install_restriction(agents[label], raw)
    for label, agent in agents.items():
        judge(ctx, dep, agent, label, guide, prose)
        ctx.drew("TF-16", _partition(label))
    ctx.cover("TF-16", lambda case: _drawn(ctx, case))


# --- through the restriction channels (a runtime's own guidance) ---------------------------


def _own_server(tools: list[str]) -> str:
    """A server name that is no tool's name (the other tools are on the default server)."""
    name, n = "guide", 0
    while name in tools:
        n += 1
        name = f"guide{n}"
    return name


def _channel_config(ctx: CheckContext, placement: Placement | None, tools: list[str],
                    guide: SectionSpec) -> tuple[DeploymentConfig, dict[str, Any]]:
    """The deployment of one case: ``guide``'s tool alone on a server of its own, the section
    given as that tool's guidance, the placement's restriction (none: an unrestricted root)."""
    assert guide.guides is not None
    server = _own_server(tools)
    specs = [ToolSpec(name=n, description=f"tool {n}", server=server) if n == guide.guides
             else ToolSpec(name=n, description=f"tool {n}") for n in tools]
    if placement is None:
        return DeploymentConfig(edition=ctx.edition, tools=specs, sections=[guide]), {}
    cfg, start = placed_config(ctx, placement, [])
    return cfg.model_copy(update={"tools": specs, "sections": [guide]}), start


def _scope_turn(ctx: CheckContext, placement: Placement | None, tools: list[str],
                guide: SectionSpec, label: str, child: Channel | None = None,
                given: bool = False) -> bool:
    """Run the scope of one case for two requests (its first reply calls a tool: a runtime may
    give guidance from a scope's second request on) and judge it: where the guided tool is
    hidden, the guidance in none of its requests; where it stays offered and an unrestricted
    scope of the same kind was ``given`` it, the guidance in one of them (it follows the
    tool's visibility: a restriction that keeps the tool keeps its guidance). No placement: an
    unrestricted scope, a plain child started through ``child``'s provider, else the root.
    Whether the guidance came."""
    cfg, start = _channel_config(ctx, placement, tools, guide)
    words = "unrestricted" if placement is None else f"{placement.restrictions} through " \
        f"{placement.label}"
    if placement is not None:
        used(ctx, placement)
        child = next((c for c in placement.channels if c.kind is ChannelKind.CHILD), None)
    with ctx.step("TF-16", f"deploying {words}"):
        dep = ctx.deploy(cfg)
    root = dep.root().agent
    turn = ScopeTurn(dep, (), set(tools))
    mark = ctx.gateway.script(marker(ctx, "tf-guide"), turn.first,
                              text(f"noted {nonce(ctx, label)}"))
    with ctx.step("TF-16", f"running the {'child' if child else 'root'} scope {words}"):
        if child is not None:
            agent = dep.start(start_request(root, child.provider, f"task {mark}",
                                            start)).agent
        else:
            dep.run_turn(root, f"task {mark}")
            agent = root
    sent = ctx.gateway.requests(agent)
    if not sent:
        ctx.fail("TF-16", said("TF-16", f"the scope {words} made no request"), "2 requests",
                 {"requests": 0})
        ctx.abort()
    found = [guide.text in request_text(r) for r in sent]
    offered = [t.name for t in sent[-1].tools]
    if guide.guides in offered:
        if placement is not None and given:
            ctx.expect("TF-16", any(found),
                       said("TF-16", f"{guide.guides} is {label} (offered, {words}), and an "
                            "unrestricted scope of the same kind is given its guidance: a "
                            "restriction that keeps a tool must keep its guidance"),
                       guide.text, {"guidance in request": found, "tools offered": offered})
        return any(found)
    ctx.expect("TF-16", not any(found),
               said("TF-16", f"{guide.guides} is {label} (hidden, {words}): the guidance of a "
                    "tool must be left out of every request where the tool is hidden"),
               None, {"guidance in request": found, "tools offered": offered})
    return any(found)


class _Baselines:
    """Whether an unrestricted scope of each kind a placement restricts (a plain child started
    through the placement's child channel's provider; the root, for the root's and the
    permission channels) is given the guidance: asked once per kind, on the hand-written
    tools. Where it is not, a case restricted on that kind of scope says nothing about the
    restriction."""

    def __init__(self, ctx: CheckContext, guide: SectionSpec) -> None:
        self.ctx, self.guide, self.given = ctx, guide, dict[str, bool]()
        self.judged = False  # a restricted case was judged

    def gives(self, placement: Placement) -> bool:
        child = next((c for c in placement.channels if c.kind is ChannelKind.CHILD), None) \
            if placement.scope is ChannelKind.CHILD else None
        kind = f"a child of {child.provider}" if child is not None else "the root"
        if kind not in self.given:
            self.given[kind] = _scope_turn(self.ctx, None, list(ABC), self.guide,
                                           "unrestricted", child)
        return self.given[kind]


def _placement(ctx: CheckContext, channels: tuple[Channel, ...],
               raw: dict[str, Any] | None) -> Placement | None:
    """The next placement that carries ``raw`` (None: unrestricted); a restriction no declared
    channel carries is a case the target cannot set up."""
    if raw is None:
        return None
    found = placements(channels, [raw])
    if not found:
        raise Unsupported("restriction channels", f"the restriction {raw}",
                          "no declared channel carries it")
    return next_of(ctx, found)


def through_channels(ctx: CheckContext, channels: tuple[Channel, ...],
                     guide: SectionSpec) -> None:
    """TF-16 where no live restriction exists: the hand-written cases, then drawn ones, each
    judged where an unrestricted scope of its kind is given the guidance (_Baselines)."""
    if ctx.guidance is None or not channels:
        raise Unsupported("install-restriction", "live tool restrictions of a running agent, "
                          "or guidance of the runtime's own (toolGuidance) beside restriction "
                          "channels", "the target declares neither")
    ctx.entry_points.append(f"guidance as {ctx.guidance}")
    baselines = _Baselines(ctx, guide)

    def case(placement: Placement | None, tools: list[str], guide: SectionSpec,
             label: str) -> None:
        if placement is None:
            _scope_turn(ctx, None, tools, guide, label)
            return
        if not baselines.gives(placement):
            raise Unsupported("tool guidance", f"guidance as {ctx.guidance} under "
                              f"{placement.label}", "the runtime gives it to no unrestricted "
                              "scope of that kind, so its absence there says nothing")
        baselines.judged = True
        _scope_turn(ctx, placement, tools, guide, label, given=True)

    for label in LABELS:
        raw = HANDWRITTEN.get(label)
        if raw is not None and not placements(channels, [raw]):
            continue  # no declared channel carries it: cover() names the partition
        try:
            case(_placement(ctx, channels, raw), list(ABC), guide, label)
        except Unsupported:
            continue  # cover() draws it, or names it inexpressible
        ctx.drew("TF-16", _partition(label))
    ctx.cover("TF-16", lambda drawn: case(_placement(ctx, channels, drawn["restriction"]),
                                          drawn["tools"], drawn["guide"], drawn["label"]))
    if not baselines.judged:
        raise Unsupported("tool guidance", f"guidance as {ctx.guidance}", "the runtime gave it "
                          "to no unrestricted scope of the kinds its channels restrict "
                          f"({', '.join(k for k, v in baselines.given.items() if not v)}), "
                          "so its absence under a restriction says nothing")
