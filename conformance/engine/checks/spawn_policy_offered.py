"""Checks of SP-02 (docs/rules.md#SP-02), per provider that advertises ``spawnPolicy``: what a
scope's model is offered to delegate with names no preset the scope's spawn policies refuse.

The delegation tools read are the ``subagent`` tools the check loads where the target ships them
and the provider's own delegation tool (``ProviderInfo.delegationTool``); the cases are
spawn_policy.py's (hand-written, then drawn), with the policies installed on the root or
composed into a child by its start request.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.spec import Component, Edition, named_refused, offered_text, parse_policies, words

from ...core.gateway import text
from ...core.protocol import SubagentToolConfig
from ...core.target import Deployment
from ..check import CheckContext, check
from ._starts import marker, provider_name, start_request
from .spawn_policy import EXAMPLE_PARTS, EXAMPLES, case_st, example_partitions, preset_specs

NOTHING_OFFERED = ("the target ships no subagent tool and the provider names no delegation tool "
                   "of its own: nothing offers a preset to the model")
#: The preset of the deployment the words of the delegation tools are first read in.
BASELINE_PRESET = "tck_baseline_preset"


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

    def deploy(self, presets: list[str]) -> tuple[Deployment, set[str] | None]:
        """A deployment of ``presets`` with the delegation tools loaded, and their names (the
        baseline is read first, in a deployment of its own: a deployment's gateway is the
        check's until the next one)."""
        if self.own is None:
            base = self.ctx.deploy(presets=preset_specs([BASELINE_PRESET]))
            names = delegation_tools(self.ctx, base, [BASELINE_PRESET]) or set()
            root = base.root().agent
            self.own = frozenset().union(*(words(offered_text(t.model_dump()))
                                           for t in base.tool_schemas(root) if t.name in names))
        dep = self.ctx.deploy(presets=preset_specs(presets))
        return dep, delegation_tools(self.ctx, dep, presets)

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
    included, offers a delegation tool that names a preset the policy refuses."""
    provider = provider_name(ctx)
    offered = Offered(ctx)

    def body(case: dict[str, Any]) -> None:
        presets, policy = case["presets"], case["policies"][0]
        dep, names = offered.deploy(presets)
        if names is None:
            ctx.skip("SP-02", NOTHING_OFFERED)
            return
        label = marker(ctx, "offered")
        ctx.gateway.script(label, text("done"))
        with ctx.step("SP-02", f"starting a child with the policy {policy}"):
            child = dep.start(start_request(dep.root().agent, provider, f"child {label}",
                                            {"spawnPolicy": policy}))
        # every request the child sent: nothing it is offered may name a refused preset
        # (docs/rules.md#SP-02), and a runtime may send a request of its own first (opencode
        # asks for a session title beside the child's first turn, in either order)
        sent = ctx.gateway.requests(child.agent)
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
        sent = ctx.gateway.requests(root)
        offered.judge(sent[-1].tools if sent else [], names, case["policies"], presets,
                      f"{what}: its next request")

    each_offered(ctx, body)


def each_offered(ctx: CheckContext, body: Any) -> None:
    for case, (part, _) in zip(EXAMPLES, EXAMPLE_PARTS, strict=True):
        body(case)
        if ctx.not_applicable:
            return
        ctx.drew("SP-02", part)
        if any(f.rule == "SP-02" for f in ctx.failures):
            return
    ctx.for_all(case_st(), body)
