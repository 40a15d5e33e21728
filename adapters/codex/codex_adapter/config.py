"""What the adapter writes for Codex (docs/codex.md, "How the adapter maps the kit's concepts"):
the deployment's ``config.toml`` in its ``CODEX_HOME`` and one custom agent file
(``CODEX_HOME/agents/NAME.toml``) per preset and per started child, as TOML (tomlkit writes
every string Codex must read back, quotes and control characters included).

The configuration keeps Codex 0.171.0 on loopback and its prompt to what the rules read
(docs/codex.md, "What keeps Codex offline"): the one model provider is the adapter's endpoint
(``wire_api = "responses"``, no retries: the kit's 5xx answers are failures it meant), no
update check, plugins, apps or analytics; none of Codex's own tools but its delegation tools
(no shell, no web search, no image tools, no goals); no environment context, skills or apps
instructions. The kit's global tools are the MCP server ``tck`` (the kit's echo server), its
calls approved without asking (``default_tools_approval_mode = "approve"``: approval policy
``never`` would refuse an MCP call that needs approval).
"""

from __future__ import annotations

import json
from typing import Any

import tomlkit

from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.spec import ErrorCode, TckError

from .proxy import SERVER

MODEL = "subagent-tck"  # the model name Codex sends (no model is reported to the kit)
PROVIDER = "tck"
KEY = "SUBAGENT_TCK_CODEX_KEY"  # the environment variable holding the provider's (any) key
#: Codex's own tools and prompt blocks turned off (each a ``[features]`` flag of 0.171.0).
FEATURES = ("shell_tool", "unified_exec", "goals", "view_image", "plugins", "remote_plugin",
            "apps", "image_generation")
#: What a tool filter's lists are in an MCP server's settings.
LISTS = {"allow": "enabled_tools", "deny": "disabled_tools"}


def instructions(persona: Any, agent: str, marker: str | None = None) -> str:
    """An agent's ``developer_instructions``: its persona (a value other than a string as
    JSON), then the marker that attributes its requests (or ``marker`` instead: a start's
    link, traffic_starts.py), on the persona's last line, so that an empty persona and a
    written one leave Codex's text around them alike (docs/driver-api.md#model-gateway)."""
    text = persona if isinstance(persona, str) else "" if persona is None else json.dumps(persona)
    return text + (marker or agent_marker(agent))


def mcp_server(command: list[str], tool_filter: Any = None) -> dict[str, Any]:
    """The MCP server ``tck`` of the kit's tools, with a tool filter as its ``enabled_tools``
    (allow) and ``disabled_tools`` (deny). A list given as null is left out; a filter of
    another shape cannot be written as these settings (INVALID_TOOL_FILTER)."""
    server: dict[str, Any] = {"command": command[0], "args": command[1:],
                              "default_tools_approval_mode": "approve",
                              "startup_timeout_sec": 30, "tool_timeout_sec": 60}
    if tool_filter is None:
        return server
    if not isinstance(tool_filter, dict):
        raise TckError(ErrorCode.INVALID_TOOL_FILTER, f"the tool filter {tool_filter!r} cannot "
                       "be written as Codex's MCP server settings (enabled_tools, "
                       "disabled_tools): give an object with allow and deny lists")
    for key, value in tool_filter.items():
        if value is not None:
            server[LISTS.get(key, key)] = value
    return server


def config_toml(url: str, command: list[str], developer: str,
                tool_filter: Any = None) -> str:
    """The deployment's ``config.toml``: the root agent's instructions (``developer``) and the
    MCP server's filter every agent is under (``tool_filter``: the root's definition and the
    deployment's permission rules, docs/codex.md "Dialect")."""
    config: dict[str, Any] = {
        "model": MODEL, "model_provider": PROVIDER, "developer_instructions": developer,
        "approval_policy": "never", "sandbox_mode": "read-only",
        "check_for_update_on_startup": False, "web_search": "disabled",
        "include_environment_context": False, "include_apps_instructions": False,
        "include_collaboration_mode_instructions": False,
        "skills": {"include_instructions": False},
        "features": {feature: False for feature in FEATURES},
        "analytics": {"enabled": False},
        "model_providers": {PROVIDER: {
            "name": "subagent-tck", "base_url": url, "wire_api": "responses", "env_key": KEY,
            "request_max_retries": 0, "stream_max_retries": 0}},
        "mcp_servers": {SERVER: mcp_server(command, tool_filter)},
    }
    return tomlkit.dumps(config)


def agent_toml(name: str, agent: str, persona: Any, command: list[str],
               tool_filter: Any = None, marker: str | None = None) -> str:
    """A custom agent file: ``name``, a description, the persona as ``developer_instructions``
    (never blank: the marker is there) and, with a tool filter, the MCP server ``tck`` with it
    (Codex documents ``mcp_servers`` in an agent file; 0.171.0 does not apply it, docs/codex.md
    "What Codex does instead")."""
    definition: dict[str, Any] = {
        "name": name, "description": f"subagent-tck agent {agent}",
        "developer_instructions": instructions(persona, agent, marker)}
    if tool_filter is not None:
        definition["mcp_servers"] = {SERVER: mcp_server(command, tool_filter)}
    return tomlkit.dumps(definition)
