"""A part of the zoo (not an entry): the reference with permission rules in a grammar of its
own, as a runtime people delegate with has them (docs/driver-api.md#dialect).

:class:`PermissionTarget` declares a fourth restriction channel besides the reference's live,
child and root ones: ``permission`` (``DeploymentConfig.permissions``, restrictions every
agent's scope of the deployment is under), whose entries may be spelled as Claude Code's
documentation spells MCP entries: ``mcp__{server}`` and ``mcp__{server}__*`` (every tool of a
server), ``mcp__*`` (every tool), ``mcp__{server}__{prefix}*`` (the server's tools whose name
starts with the prefix), ``mcp__{server}__{tool}`` (one tool by its full name). A tool's server
is the ``server`` the kit gave it. Refusals are the catalogue's (TF-07, TF-08), at deployment.

An entry overrides :meth:`PermissionResolver.read` (how one permission rule is read) or
:data:`PermissionTarget.grammar` (what it declares) with its bug or its variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.core.dialect import (
    ChannelKind,
    EntryForm,
    EntryMeaning,
    FilterGrammar,
    RestrictionChannel,
    oracle_grammar,
)
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig, TargetInfo, ToolSpec
from subagent_tck.conformance.transports.builtin import (
    CHANNELS,
    ReferenceDeployment,
    ReferenceTarget,
)
from subagent_tck.reference import Host, ResolvedTool, Resolver, Scope
from subagent_tck.spec import ErrorCode, Origin, Restriction, TckError
from subagent_tck.spec.grammar import Grammar, Tool, expand, known

#: Claude Code's spellings of MCP entries, as its permission rules document them.
MCP_FORMS = [
    EntryForm(spelling="mcp__{server}", meaning=EntryMeaning.SERVER),
    EntryForm(spelling="mcp__{server}__*", meaning=EntryMeaning.SERVER),
    EntryForm(spelling="mcp__*", meaning=EntryMeaning.ALL),
    EntryForm(spelling="mcp__{server}__{prefix}*", meaning=EntryMeaning.PREFIX),
    EntryForm(spelling="mcp__{server}__{tool}", meaning=EntryMeaning.TOOL),
]


class PermissionResolver(Resolver):
    """The reference's resolver, every scope's view also under the deployment's permission
    rules, each read over the registry as it is now (a server-level deny reaches a tool
    registered later)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.permissions: tuple[Mapping[str, Any], ...] = ()
        self.servers: dict[str, str] = {}
        self.grammar: Grammar = oracle_grammar(None)

    def tools(self) -> list[Tool]:
        return [Tool(n, self.servers.get(n)) for n in self.registry.names()]

    def read(self, rule: Mapping[str, Any], tools: list[Tool]) -> Restriction:
        """One permission rule as the runtime reads it: by its declared grammar."""
        return expand(rule, self.grammar, tools)

    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        entries = super().view(scope)
        if scope is None or not self.permissions:
            return entries
        tools = self.tools()
        rules = [self.read(rule, tools) for rule in self.permissions]
        return tuple(e for e in entries if e.origin is not Origin.GLOBAL
                     or all(r.admits(e.name) for r in rules))


class PermissionHost(Host):
    resolver_class = PermissionResolver


class PermissionDeployment(ReferenceDeployment):
    """Keeps each global tool's server for the resolver."""

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        super().register_tool(tool, agent)
        if agent is None and isinstance(tool.server, str):
            self._resolver().servers[tool.name] = tool.server

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        super().unregister_tool(name, agent)
        if agent is None:
            self._resolver().servers.pop(name, None)

    def _resolver(self) -> PermissionResolver:
        resolver = self.host.resolver
        assert isinstance(resolver, PermissionResolver)
        return resolver


class PermissionTarget(ReferenceTarget):
    """The reference with deployment-wide permission rules in an MCP entry grammar."""

    host_class = PermissionHost
    deployment_class = PermissionDeployment
    grammar = FilterGrammar(forms=MCP_FORMS)
    via = "settings permissions.allow/deny"

    def info(self) -> TargetInfo:
        channel = RestrictionChannel(kind=ChannelKind.PERMISSION, grammar=self.grammar,
                                     via=self.via)
        return super().info().model_copy(update={"restrictionChannels": [*CHANNELS, channel]})

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> ReferenceDeployment:
        grammar = oracle_grammar(self.grammar)
        tools = [Tool(t.name, t.server if isinstance(t.server, str) else None)
                 for t in config.tools]
        rules = _validated(config.permissions, grammar, tools) \
            if "permissions" in config.model_fields_set else ()
        plain = DeploymentConfig(**{k: getattr(config, k) for k in config.model_fields_set
                                    if k != "permissions"})
        deployment = super().deploy(plain, gateway)
        resolver = deployment.host.resolver
        assert isinstance(resolver, PermissionResolver)
        resolver.grammar = grammar
        resolver.permissions = rules
        return deployment


def _validated(value: Any, grammar: Grammar, tools: list[Tool]) -> tuple[Mapping[str, Any], ...]:
    """The permission rules, or the catalogue's refusal (docs/rules.md#TF-07, #TF-08): a rule
    with neither list, or an entry the grammar does not know, listing every one."""
    if not isinstance(value, list):
        raise TckError(ErrorCode.INVALID_TOOL_FILTER, "permissions is a list of {allow?, deny?}")
    offending: list[str] = []
    for rule in value:
        if not isinstance(rule, Mapping) or set(rule) - {"allow", "deny"}:
            raise TckError(ErrorCode.INVALID_TOOL_FILTER,
                           f"a permission rule is {{allow?, deny?}}, not {rule!r}")
        lists = [v for v in rule.values() if v is not None]
        if not lists:
            raise TckError(ErrorCode.INVALID_TOOL_FILTER, "a permission rule with neither allow "
                           "nor deny changes nothing (TF-07)")
        for entries in lists:
            if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
                raise TckError(ErrorCode.INVALID_TOOL_FILTER, "allow and deny list entries")
            offending += [e for e in entries if not known(e, grammar, tools)
                          and e not in offending]
    if offending:
        raise TckError(ErrorCode.INVALID_TOOL_FILTER, "permission rules name no tool: "
                       + ", ".join(offending), {"offending": offending})
    return tuple(dict(rule) for rule in value)

