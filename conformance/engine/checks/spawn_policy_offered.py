"""Checks of SP-02 (docs/rules.md#SP-02), per provider that advertises ``spawnPolicy``: what a
scope's model is offered to delegate with names no preset the scope's spawn policies refuse.

The delegation tools read are the ``subagent`` tools the check loads where the target ships them
and the provider's own delegation tool (``ProviderInfo.delegationTool``), read in the requests as
the target sent them: a runtime's own tool is left out of what every other check reads
(docs/certify.md#tools-the-target-brings). The cases are spawn_policy.py's (hand-written, then
drawn), with the policies installed on the root, carried by the preset the root is started from
(the root channel), or composed into a child by its start request.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.spec import Component, Edition, named_refused, offered_text, parse_policies, words

from ...core.dialect import ChannelKind
from ...core.gateway import call, text
from ...core.protocol import PresetSpec, SubagentToolConfig
from ...core.target import Deployment
from ..check import CheckContext, check
from ..partitions import Partition
from ._starts import marker, provider_name, start_request
from .spawn_policy import (
    EXAMPLE_PARTS,
    EXAMPLES,
    case_st,
    example_partitions,
    preset_specs,
    root_lead,
)

NOTHING_OFFERED = ("the target ships no subagent tool and the provider names no delegation tool "
                   "of its own: nothing offers a preset to the model")
#: The preset of the deployment the words of the delegation tools are first read in.
BASELINE_PRESET = "tck_baseline_preset"
#: One global tool in every deployment of these checks: an agent has a tool besides the
#: delegation tool, as a runtime may insist (Claude Code 2.1.332 refuses to start an agent
#: whose definition's tools resolve to none but ``Agent(...)``: "would be spawned with zero
#: tools"). No case reads it.
TOOLS = ["tool_a"]


def delegation_tools(ctx: CheckContext, dep: Deployment, presets: list[str]) -> set[str] | None:
    """Load the kit's ``subagent`` tools where the target ships them (one bound to the provider,
    and in the preset-composition edition one bound to a preset too) and add the provider's own
    delegation tool: the names SP-02 reads, or None when there is none to read."""
    assert ctx.provider is not None
    names = {ctx.provider.delegationTool} if ctx.provider.delegationTool else set()
    info = ctx.target.info()
    if Component.SUBAGENT_TOOL in info.components:
        with ctx.step("SP-02", f"loading the subagent tool bound to {ctx.provider.name}"):
            dep.load_subagent_tool(SubagentToolConfig(provider=ctx.provider.name))
        names.add("subagent")
        if ctx.edition is Edition.PRESET_COMPOSITION:
            with ctx.step("SP-02", f"loading a subagent tool bound to the preset {presets[0]}"):
                dep.load_subagent_tool(SubagentToolConfig(
                    provider=ctx.provider.name, toolName="delegate", preset=presets[0]))
            names.add("delegate")
    return names or None


class Offered:
    """What SP-02 reads in one check run: the delegation tools' names, and the words they say
    in a deployment whose one preset is :data:`BASELINE_PRESET` (a drawn preset named like one
    of them, ``task`` or ``prompt``, cannot be told apart from the tool's own wording, so it is
    not judged)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.own: frozenset[str] | None = None

    def deploy(self, presets: list[str], lead: PresetSpec | None = None
               ) -> tuple[Deployment, set[str] | None]:
        """A deployment of ``presets`` with the delegation tools loaded, and their names; with
        ``lead``, the root started from that preset too (the baseline is read first, in a
        deployment of its own: a deployment's gateway is the check's until the next one)."""
        if self.own is None:
            self.own = self._baseline()
        if lead is None:
            dep = self.ctx.deploy(tools=TOOLS, presets=preset_specs(presets))
        else:
            dep = self.ctx.deploy(tools=TOOLS, presets=[*preset_specs(presets), lead],
                                  rootPreset=lead.name)
        return dep, delegation_tools(self.ctx, dep, presets)

    def _baseline(self) -> frozenset[str]:
        """The words the delegation tools say with :data:`BASELINE_PRESET` alone: in the root's
        tool schemas and, for a provider's own delegation tool (which may say more once it
        runs: Claude Code's listing of agent types), in the request of a turn of the root."""
        assert self.ctx.provider is not None
        base = self.ctx.deploy(tools=TOOLS, presets=preset_specs([BASELINE_PRESET]))
        names = delegation_tools(self.ctx, base, [BASELINE_PRESET]) or set()
        root = base.root().agent
        tools = list(base.tool_schemas(root))
        if self.ctx.provider.delegationTool:
            with self.ctx.step("SP-02", "running a turn of the root beside one preset"):
                base.run_turn(root, f"turn {marker(self.ctx, 'baseline')}")
            tools += [t for r in self.ctx.gateway.requests(root, as_sent=True) for t in r.tools]
        return frozenset().union(*(words(offered_text(t.model_dump()))
                                   for t in tools if t.name in names))

    def judge(self, tools: list[Any], names: set[str], policies: list[Any], presets: list[str],
              what: str) -> None:
        offered = [t.model_dump() for t in tools if t.name in names]
        named = named_refused(offered, parse_policies(policies, presets), presets, self.own or ())
        self.ctx.expect("SP-02", not named, f"{what}: a delegation tool names presets the "
                        f"policies refuse: {named}", "no refused preset named",
                        {"named": named, "offered": offered})


@check("SP-02", name="spawn-policy-offered-child", partitions=example_partitions("SP-02"))
def offered_child(ctx: CheckContext) -> None:
    """A child composed with a policy (its start request's): none of its requests, the first
    included, offers a delegation tool that names a preset the policy refuses (it calls a
    global tool first, so that it makes two)."""
    provider = provider_name(ctx)
    offered = Offered(ctx)

    def body(case: dict[str, Any]) -> None:
        presets, policy = case["presets"], case["policies"][0]
        dep, names = offered.deploy(presets)
        if names is None:
            ctx.skip("SP-02", NOTHING_OFFERED)
            return
        label = marker(ctx, "offered")
        # a tool call first, so that the child makes a later request too: a runtime may tell
        # its model what it can delegate to only after the first (Claude Code 2.1.332 sends
        # its listing of agent types from a subagent's second request on)
        ctx.gateway.script(label, call(TOOLS[0], {}), text("done"))
        with ctx.step("SP-02", f"starting a child with the policy {policy}"):
            child = dep.start(start_request(dep.root().agent, provider, f"child {label}",
                                            {"spawnPolicy": policy}))
        # every request the child sent: nothing it is offered may name a refused preset
        # (docs/rules.md#SP-02), and a runtime may send a request of its own first (opencode
        # asks for a session title beside the child's first turn, in either order)
        sent = ctx.gateway.requests(child.agent, as_sent=True)
        offered.judge([t for request in sent for t in request.tools], names, [policy], presets,
                      f"the requests of a child with the policy {policy}")

    each_offered(ctx, body)


@check("SP-02", name="spawn-policy-offered-live", partitions=example_partitions("SP-02"))
def offered_live(ctx: CheckContext) -> None:
    """The root under policies installed on it: its tool schemas and its next request offer
    no delegation tool that names a preset they refuse."""
    offered = Offered(ctx)

    def body(case: dict[str, Any]) -> None:
        presets = case["presets"]
        dep, names = offered.deploy(presets)
        root = dep.root().agent
        if names is None:
            ctx.skip("SP-02", NOTHING_OFFERED)
            return
        for raw in case["policies"]:
            with ctx.step("SP-02", f"installing the spawn policy {raw}"):
                dep.install_spawn_policy(root, raw)
        what = f"the root under the policies {case['policies']}"
        offered.judge(dep.tool_schemas(root), names, case["policies"], presets,
                      f"{what}: its tool schemas")
        with ctx.step("SP-02", "running a turn of the root"):
            dep.run_turn(root, f"turn {marker(ctx, 'offered')}")
        sent = ctx.gateway.requests(root, as_sent=True)
        offered.judge(sent[-1].tools if sent else [], names, case["policies"], presets,
                      f"{what}: its next request")

    each_offered(ctx, body)


#: A policy the root is started with: its preset's, through the root channel.
ROOT_OFFERED = Partition("SP-02", "root-preset", "the policy of the preset the root is started "
                         "from (DeploymentConfig.rootPreset: the root channel)")


@check("SP-02", name="spawn-policy-offered-root", edition=Edition.PRESET_COMPOSITION,
       partitions=(ROOT_OFFERED,))
def offered_root(ctx: CheckContext) -> None:
    """The root started from a preset that carries a policy (the root channel, for a target
    that declares it: Claude Code's ``--agent NAME``): no request of its turn offers a
    delegation tool that names a preset the policy refuses, as under a live policy on the root
    (docs/rules.md#SP-02, docs/driver-api.md#dialect). Each case is a part: one whose policy
    the target cannot write on its root's definition is drawn around, and says so."""
    if not any(c.kind is ChannelKind.ROOT for c in ctx.channels):
        ctx.inapplicable("SP-02", ROOT_OFFERED.name)
        return
    offered = Offered(ctx)

    def body(case: dict[str, Any]) -> None:
        presets, policy = case["presets"], case["policies"][0]
        with ctx.expressible("SP-02", ROOT_OFFERED.name):
            lead = PresetSpec(name=root_lead(presets), spawnPolicy=policy)
            dep, names = offered.deploy(presets, lead)
            if names is None:
                ctx.skip("SP-02", NOTHING_OFFERED)
                return
            root = dep.root().agent
            with ctx.step("SP-02", f"running a turn of the root started from {lead.name!r}"):
                dep.run_turn(root, f"turn {marker(ctx, 'offered')}")
            sent = ctx.gateway.requests(root, as_sent=True)
            offered.judge([t for request in sent for t in request.tools], names, [policy],
                          presets, f"the requests of the root started from a preset with the "
                          f"policy {policy}")
            ctx.drew("SP-02", ROOT_OFFERED.name)

    for case in EXAMPLES:  # each policy of a hand-written case on its own: a preset has one
        for policy in case["policies"]:
            body({**case, "policies": [policy]})
            if ctx.not_applicable:
                return
    # the drawn cases once every hand-written one passed (a failure of one of those is the
    # same at every seed, so a baseline can name it)
    if not any(f.rule == "SP-02" for f in ctx.failures):
        ctx.for_all(case_st(), body)


def each_offered(ctx: CheckContext, body: Any) -> None:
    for case, (part, _) in zip(EXAMPLES, EXAMPLE_PARTS, strict=True):
        body(case)
        if ctx.not_applicable:
            return
        ctx.drew("SP-02", part)
        if any(f.rule == "SP-02" for f in ctx.failures):
            return
    ctx.for_all(case_st(), body)
