"""TF-01 for a runtime's own delegation tool (docs/rules.md#TF-01), per provider that names one
(``ProviderInfo.delegationTool``: Claude Code's ``Agent``, opencode's ``task``, Qwen Code's
``agent``) and advertises ``toolFilter``.

Every other check leaves a target's own tools out of what it judges
(docs/certify.md#tools-the-target-brings): the kit does not know their arguments, and which
children should see them depends on filters drawn over the kit's names. The delegation tool is
the exception a user meets first: a definition's ``tools`` that leaves it out, or a
``disallowedTools`` that names it, is how a runtime's user keeps a child from delegating. So
this check draws a child's filter over the kit's global tools *and* the delegation tool (named
in the allow list or not, in the deny list or not, both lists at once) and reads the child's
first request as the target sent it: the tool is offered exactly when the filter admits it,
allow before deny, as for any global tool.

Only where the runtime offers the tool at all: a child started below its cap (``maxDepth`` 2
where the provider advertises ``depthLimit``), with a spawn policy that refuses nothing where
it takes one (docs/rules.md#ST-07 asks what happens at the cap). A child with no filter that is
not offered the tool there makes every partition inexpressible, with the reason: the filter is
then not what withholds it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from subagent_tck.spec import Capability, Restriction
from subagent_tck.spec.grammar import Tool

from ...core.dialect import ChannelKind, ToolNameFolding
from ...core.gateway import text
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Drawer, Partition
from ._channels import Channel, Placement, channels_for, placed_config, used
from ._names import tool_names
from ._starts import marker, neutral_policy, provider_name, start_request

#: How many of the kit's global tools a case registers (drawn), beside the delegation tool.
KIT_TOOLS = (1, 4)


@st.composite
def _drawn(draw: Any, allow: bool, deny: bool, in_allow: bool | None, in_deny: bool | None,
           avoid: tuple[str, ...]) -> dict[str, Any]:
    """Kit tool names, and the lists of a filter over them: each list given a drawn subset
    and the delegation tool at a drawn place (``in_*``: named or not; None: drawn)."""
    tools: list[str] = draw(tool_names(*KIT_TOOLS, avoid=avoid))
    case: dict[str, Any] = {"tools": tools}
    for key, wanted, named in (("allow", allow, in_allow), ("deny", deny, in_deny)):
        if not wanted:
            continue
        naming = draw(st.booleans()) if named is None else named
        # never an empty list: what one means is TF-03's (docs/rules.md#TF-03), not this rule's
        entries = draw(st.lists(st.sampled_from(tools), unique=True,
                                min_size=0 if naming else 1, max_size=len(tools)))
        case[key] = entries
        case[f"own_{key}"] = draw(st.integers(0, len(entries))) if naming else None
    return case


#: A partition's shape: which lists its filters give, and whether each names the delegation
#: tool (None: drawn either way).
Shape = tuple[bool, bool, "bool | None", "bool | None"]


def _case(shape: Shape) -> Callable[[Drawer], SearchStrategy[dict[str, Any]]]:
    """The cases of one partition, their kit tools never named as the provider's delegation
    tool (the context's, where it has a provider)."""

    def cases(drawer: Drawer) -> SearchStrategy[dict[str, Any]]:
        provider = getattr(drawer, "provider", None)
        own = getattr(provider, "delegationTool", None)
        folding: ToolNameFolding | None = getattr(drawer, "folding", None)
        drawn = _drawn(*shape, (own,) if own else ())
        # two names the runtime folds into one are the folded-names case of TF-01's own
        # check (docs/driver-api.md#tool-name-folding): never drawn here, at any seed
        return drawn if folding is None else drawn.filter(
            lambda case: len({folding.fold(t) for t in case["tools"]}) == len(case["tools"]))

    return cases


def _named(case: Any, key: str) -> bool | None:
    """Whether ``case``'s ``key`` list names the delegation tool (None: no such list)."""
    return None if key not in case else case[f"own_{key}"] is not None


def _member(shape: Shape) -> Callable[[Any], bool]:
    """Whether a case has ``shape``."""
    def inside(case: Any) -> bool:
        return all((key in case) == given and (named is None or _named(case, key) is named)
                   for key, given, named in (("allow", shape[0], shape[2]),
                                             ("deny", shape[1], shape[3])))
    return inside


#: The partitions: name, what it covers, shape.
SHAPES: tuple[tuple[str, str, Shape], ...] = (
    ("own-tool-allow-naming", "an allow list that names the provider's delegation tool: "
     "offered", (True, False, True, None)),
    ("own-tool-allow-omitting", "an allow list of other tools only: withheld",
     (True, False, False, None)),
    ("own-tool-deny-naming", "a deny list that names the delegation tool: withheld",
     (False, True, None, True)),
    ("own-tool-deny-omitting", "a deny list of other tools only: offered",
     (False, True, None, False)),
    ("own-tool-both-lists", "an allow list naming the delegation tool beside a deny list that "
     "names it or not: the deny list decides", (True, True, True, None)),
)
TF01 = tuple(Partition("TF-01", name, doc, cases=_case(shape), member=_member(shape))
             for name, doc, shape in SHAPES)
#: The lists each partition's filters give.
LISTS = {name: {k for k, given in zip(("allow", "deny"), shape[:2], strict=True) if given}
         for name, _, shape in SHAPES}


def restriction(case: dict[str, Any], tool: str) -> dict[str, list[str]]:
    """The filter of ``case`` with the delegation tool ``tool`` in its place."""
    out: dict[str, list[str]] = {}
    for key in ("allow", "deny"):
        if key in case:
            entries = list(case[key])
            if case[f"own_{key}"] is not None:
                entries.insert(case[f"own_{key}"], tool)
            out[key] = entries
    return out


def _channels(ctx: CheckContext) -> list[Channel]:
    """The channels that put a filter on a scope whose requests the check reads: a child of
    the provider under test, the root's own definition, permission rules (read on the root,
    as every permission case is). A live restriction is read with ``view``, which leaves the
    target's own tools out (docs/certify.md#tools-the-target-brings): not used here."""
    name = provider_name(ctx)
    return [c for c in channels_for(ctx)
            if (c.kind is ChannelKind.CHILD and c.provider == name)
            or c.kind in (ChannelKind.ROOT, ChannelKind.PERMISSION)]


def _parts(channel: Channel) -> list[str]:
    """The partitions made of lists ``channel`` carries."""
    return [p.name for p in TF01 if LISTS[p.name] <= set(channel.declared.lists)]


@check("TF-01", name="delegation-tool-filtered", partitions=TF01)
def own_tool_filtered(ctx: CheckContext) -> None:
    """A filter decides whether its scope is offered the provider's own delegation tool, allow
    before deny, as it decides any global tool's place in the scope's view: through each
    channel that puts one on a child or the root."""
    assert ctx.provider is not None, "TF-01 runs per provider"
    tool = ctx.provider.delegationTool
    channels = _channels(ctx) if tool else []
    reachable = {name for c in channels for name in _parts(c)}
    ctx.inapplicable("TF-01", *(p.name for p in TF01 if p.name not in reachable))
    if not tool:
        return
    fields: dict[str, Any] = neutral_policy(ctx)
    if Capability.DEPTH_LIMIT in ctx.provider.capabilities:
        fields["maxDepth"] = 2  # below its cap (a child at it need not be offered the tool)

    def offered(channel: Channel, tools: Sequence[str], raw: dict[str, list[str]] | None,
                what: str) -> tuple[bool, int]:
        """Whether the scope ``channel`` puts ``raw`` on (None: no filter) is offered the tool
        in its first request, and how many requests it sent."""
        placement = Placement(((channel, raw),) if raw is not None else ())
        cfg, start = placed_config(ctx, placement, [Tool(t) for t in tools])
        with ctx.step("TF-01", f"deploying {what}"):
            dep = ctx.deploy(cfg)
        label = marker(ctx, "own-filter")
        ctx.gateway.script(label, text("done"))
        root = dep.root().agent
        if channel.kind is ChannelKind.CHILD:
            with ctx.step("TF-01", f"starting a child with {what}"):
                agent = dep.start(start_request(root, provider_name(ctx), f"child {label}",
                                                {**start, **fields})).agent
        else:
            with ctx.step("TF-01", f"running the root's turn with {what}"):
                dep.run_turn(root, f"task {label}")
            agent = root
        requests = ctx.gateway.requests(agent, as_sent=True)
        return bool(requests) and any(t.name == tool for t in requests[0].tools), len(requests)

    unfiltered: dict[str, bool] = {}  # per scope: offered the tool with no filter
    for channel in channels:
        scope = "a child" if channel.kind is ChannelKind.CHILD else "the root"

        def body(case: dict[str, Any], channel: Channel = channel, scope: str = scope) -> None:
            raw = restriction(case, tool)
            what = f"the filter {raw} over {case['tools']} through {channel.label}"
            admitted = Restriction.of(raw.get("allow"), raw.get("deny")).admits(tool)
            shown, sent = offered(channel, case["tools"], raw, what)
            way = "withheld where admitted" if admitted else "offered where withheld"
            ctx.expect("TF-01", sent >= 1 and shown == admitted,
                       f"{scope} with {what} must {'' if admitted else 'not '}be offered the "
                       f"provider's delegation tool {tool} (allow before deny, as for any "
                       "global tool)", {"offered": admitted},
                       {"offered": shown} if sent else {"requests": 0},
                       key=f"through {channel.label}: the delegation tool {way}")

        parts = _parts(channel)
        with ctx.expressible("TF-01", *parts):
            if scope not in unfiltered:  # the root's is one case for two channels
                unfiltered[scope] = offered(channel, ["tool_a"], None, "no filter")[0]
            if not unfiltered[scope]:
                below = " (started below its cap)" if channel.kind is ChannelKind.CHILD else ""
                raise Unsupported(f"{scope} offered its delegation tool", tool,
                                  f"{scope}{below} with no filter was not offered {tool}, so "
                                  f"no filter through {channel.label} can be what withholds "
                                  "it")
            used(ctx, Placement(((channel, None),)))
            # each case is a deployment and a run (a real runtime's: seconds): a budget of
            # one case per partition, each drawn at every seed through every channel
            ctx.cover("TF-01", body, parts, max_examples=len(parts))
