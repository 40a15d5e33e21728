"""Claude Code as a kit target: each deployment a fresh project directory, each run a
``claude -p`` (docs/claude-code.md, "How the adapter maps the kit's concepts").

- the deployment persona is the root's system prompt (``--system-prompt``); the kit's global
  tools are served by the deployment's MCP server ``tck`` (the kit's ``mcp_echo``,
  subagent_tck.conformance.transports.mcp_echo), so the model sees them as ``mcp__tck__NAME``; a
  tool registered or unregistered while a ``claude`` runs is announced to it (MCP's
  ``notifications/tools/list_changed``) and the adapter waits, briefly, until it has re-listed;
  the root's built-in tools are only ``Agent`` (``--tools Agent``);
- a preset is a project agent ``.claude/agents/NAME.md``: body = persona, ``tools`` = allow,
  ``disallowedTools`` = deny (kit tool names written as Claude Code names them);
- the kit's ``start`` is a ``claude -p`` whose parent (answered by the adapter, proxy.py) calls
  ``Agent`` with a fresh agent definition made from the preset; the child's requests go to the
  kit's gateway, attributed by the marker planted in its body; what an agent sees is its last
  request; a ``run-turn`` of the root is a ``claude -p`` whose every request the kit answers.

Operations Claude Code has no counterpart for are answered ``UNSUPPORTED_OPERATION`` (the
driver API's "this runtime cannot express that operation",
docs/driver-api.md#unsupported-operations: the rules whose checks need them are not
applicable) with a message saying what Claude Code offers instead (docs/claude-code.md,
"Operations")."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from typing import Any

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig, ToolResult, ToolSchema
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.traffic import (
    ROOT,
    Outcome,
    TrafficDeployment,
)
from subagent_tck.conformance.transports.traffic_refusals import Reasons
from subagent_tck.conformance.transports.traffic_routes import TrafficTarget
from subagent_tck.conformance.transports.traffic_starts import UNSET, Start, start_marker, token
from subagent_tck.spec import ErrorCode, StopReason, TckError

from . import agents_dir, install
from .proxy import Proxy, Route

PROVIDER = "agent"  # Claude Code's Agent tool with a project agent (docs/claude-code.md)
SERVER = "tck"  # the MCP server's name: its tools are mcp__tck__NAME
RUN_TIMEOUT = float(os.environ.get("SUBAGENT_TCK_CLAUDE_TIMEOUT", "60"))
#: How long a tool change waits for a running ``claude`` to re-list its MCP tools, in seconds.
RELIST_TIMEOUT = 2.0


def wire_name(tool: str) -> str:
    """The name Claude Code gives the kit's global tool ``tool`` (served by MCP server tck)."""
    return f"mcp__{SERVER}__{tool}"


#: Claude Code's depth setting (docs/claude-code.md "Depth"): read at each call of the
#: delegation tool from 2.1.217 on.
SETTING = "CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH"
SETTING_SINCE = (2, 1, 217)
#: How Claude Code words its refusal for the depth cap (its Agent tool's call, 2.1.181 on).
DEPTH_WORDS = ("Subagent nesting limit reached",)


def setting_text(value: Any) -> str:
    """A kit depth value as a Claude Code user writes CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH:
    a number as JavaScript prints it (1.0 is "1", 2^53 is "9007199254740992") but ``-0`` as
    "-0", a string as it is, anything else as its JSON text. Claude Code, not the adapter,
    decides what the text means (docs/claude-code.md "Depth")."""
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        return json.dumps(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value == 0 and math.copysign(1.0, value) < 0:
            return "-0"
        if value.is_integer():
            return str(int(value))
        return repr(value)
    return str(value)


class ClaudeCodeTarget(TrafficTarget[Proxy]):
    runtime = "Claude Code"
    folder = "claude-code"
    provider = PROVIDER

    def __init__(self) -> None:
        self.install = install.find()
        self.version = self.install.version
        self.depth_limit = self.install.release >= SETTING_SINCE
        super().__init__(Proxy)
        directory = os.environ.get(agents_dir.ENV)  # the user's definitions (agents_dir.py)
        self._definitions = agents_dir.load(directory) if directory else []

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> ClaudeCodeDeployment:
        base, proxy, name = self._endpoint(gateway)
        return ClaudeCodeDeployment(config, base, proxy, name, self._definitions, self.install)


class ClaudeCodeDeployment(TrafficDeployment[Route]):
    runtime = "Claude Code"
    page = "docs/claude-code.md#operations"
    provider = PROVIDER
    call_prefix = "toolu_tck_"
    agents_folder = ".claude/agents"
    temp_prefix = "tck-claude-"
    relist = RELIST_TIMEOUT
    unknown_start = StopReason.ERROR
    reasons = Reasons(
        create_agent="each `claude -p` is one top-level session at depth 0",
        put_session_header="its transcripts carry no depth",
        resume=("cold resume of a subagent's session", "its parent continues a subagent with "
                "SendMessage while the parent session lives"),
        register_tool="an agent's tools are the MCP servers and built-ins its definition names",
        install_restriction="an agent's tools are fixed by its definition (tools, "
                            "disallowedTools) when it starts",
        start=("delegation from a subagent in this version", "before 2.1.172 the delegation "
               "tool is offered to the top-level session only"),
        run_turn="the parent continues it with SendMessage",
        set_host_depth=("depth setting in this version", "CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH "
                        "is read from 2.1.217 on"))
    depth_words = DEPTH_WORDS

    def __init__(self, config: DeploymentConfig, gateway_url: str, proxy: Proxy,
                 name: str, definitions: list[agents_dir.Definition] | None = None,
                 claude: install.Install | None = None) -> None:
        self.claude = claude or install.find()
        self.tool = self.claude.tool
        self.nesting = self.claude.nesting
        self.depth_limit = self.claude.release >= SETTING_SINCE
        super().__init__(config)
        command = self.mcp.command()
        self._mcp_config = self.dir / "mcp.json"
        self._mcp_config.write_text(json.dumps({"mcpServers": {SERVER: {
            "type": "stdio", "command": command[0], "args": command[1:]}}}), encoding="utf-8")
        self._running: set[subprocess.Popen[bytes]] = set()
        self._mount(proxy, name, Route(gateway_url, lambda request, token, body:
                                       self._drive(request, token), {self.tool}))
        self._write_presets()  # a root turn may call Agent with one
        self.definitions = list(definitions or ())  # the user's own, as they wrote them
        agents_dir.install(self.definitions, self.agents_dir)

    # --- files ---------------------------------------------------------------------------

    def _listening(self) -> bool:
        return bool(self._running)  # a running ``claude`` re-lists on list_changed

    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str,
                     marker: str | None = None) -> None:
        front = [f"name: {file}", f"description: {json.dumps('subagent-tck agent ' + agent)}"]
        if isinstance(tool_filter, dict):
            for key, field in (("allow", "tools"), ("deny", "disallowedTools")):
                if key in tool_filter:
                    front.append(f"{field}: {json.dumps(self._names(tool_filter[key]))}")
        self._write_definition(file, front, persona, agent, marker)

    def _names(self, value: Any) -> Any:
        """A filter list as Claude Code names the tools: the kit's names are its MCP tools
        (``mcp__tck__NAME``); the delegation tool, and a typed entry ``Agent(type)`` of it,
        keep their own name."""
        if not isinstance(value, list):
            return value
        return [v if not isinstance(v, str) or self._own_name(v) else wire_name(v)
                for v in value]

    def _own_name(self, name: str) -> bool:
        return name == self.tool or name.startswith(self.tool + "(")

    def _names_tool(self, names: list[Any]) -> bool:
        return any(isinstance(n, str) and self._own_name(n) for n in names)

    def _named(self) -> list[str]:
        return super()._named() + [d.agent for d in self.definitions]

    def _own_tools(self) -> list[ToolSchema]:
        """The delegation tool (its schema as the last run showed; before one, any object)."""
        return [ToolSchema(name=self.tool, parameters={"type": "object"})]

    # --- running claude ----------------------------------------------------------------

    def _system(self, agent: str, extra: str = "") -> str:
        persona = self.config.persona or ""
        return (persona + "\n" if persona else "") + agent_marker(agent) + extra

    def _claude(self, prompt: str, system: str,
                setting: Any = UNSET) -> subprocess.CompletedProcess[bytes]:
        """One ``claude -p`` run, ``setting`` its depth setting (UNSET: Claude Code's
        default)."""
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir / "home"),
               "ANTHROPIC_BASE_URL": self.url, "ANTHROPIC_API_KEY": "sk-subagent-tck-offline",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "CLAUDE_CODE_MAX_RETRIES": "0", "NO_PROXY": "127.0.0.1,localhost",
               # every tool declared in full, none deferred behind a placeholder (from 2.1.2xx
               # Claude Code may declare MCP tools by name only, DeferredToolPlaceholder)
               "ENABLE_TOOL_SEARCH": "false"}
        if "SUBAGENT_TCK_ADAPTER" in os.environ:  # the kit's marker: its cleanup finds claude
            env["SUBAGENT_TCK_ADAPTER"] = os.environ["SUBAGENT_TCK_ADAPTER"]
        if setting is not UNSET and self.depth_limit:
            env[SETTING] = setting_text(setting)
        command = [*self.claude.command, "-p", prompt, "--system-prompt", system,
                   "--tools", self.tool,
                   "--mcp-config", str(self._mcp_config), "--strict-mcp-config",
                   "--allowedTools", f"mcp__{SERVER}", "--permission-mode", "acceptEdits",
                   "--setting-sources", "project", "--output-format", "json"]
        # its own process group (killed whole on a timeout), still in the adapter's session
        group: dict[str, Any] = ({"process_group": 0} if sys.version_info >= (3, 11)
                                 else {"preexec_fn": os.setpgrp})
        process = subprocess.Popen(command, cwd=self.project, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, **group)
        with self._lock:
            self._running.add(process)
        try:
            out, err = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._kill(process)
            out, err = process.communicate()
            raise TckError(ErrorCode.TIMEOUT, f"claude -p did not finish within "
                           f"{RUN_TIMEOUT:g} s (SUBAGENT_TCK_CLAUDE_TIMEOUT): "
                           f"{err.decode('utf-8', 'replace')[-500:]}") from None
        finally:
            with self._lock:
                self._running.discard(process)
        return subprocess.CompletedProcess(command, process.returncode, out, err)

    @staticmethod
    def _kill(process: subprocess.Popen[bytes]) -> None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            process.kill()

    def _run_start(self, start: Start) -> Outcome:
        child = start.child.agent
        done = self._claude(f"start {child}", self._system(ROOT, "\n" + start_marker(
            token(start.number, 0))), start.setting)
        result = start.result
        if result is None:
            output: Any = done.stderr.decode("utf-8", "replace")[-500:] or \
                done.stdout.decode("utf-8", "replace")[-500:]
            return StopReason.ERROR, output, self._results(child)
        stop = StopReason.ERROR if result.isError else StopReason.COMPLETED
        return stop, result.content, self._results(child)

    def _results(self, agent: str) -> list[ToolResult]:
        """The tool results the agent's last request carried, in order (what Claude Code
        answered its model's calls). Claude Code's "No such tool available" error, its answer
        to a call of a tool it did not offer, is translated as UNKNOWN_TOOL."""
        seen = self._seen(agent)
        if seen is None:
            return []
        return [ToolResult(isError=m.isError, content=m.content,
                           code="UNKNOWN_TOOL" if m.isError and "No such tool available"
                           in str(m.content) else None)
                for m in seen.messages if m.role == "tool"]

    def _run_root(self, prompt: str) -> Outcome:
        done = self._claude(prompt, self._system(ROOT), self.host_depth)
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):  # no result object: claude ended before its answer
            return StopReason.ERROR, done.stderr.decode("utf-8", "replace")[-500:], \
                self._results(ROOT)
        stop = StopReason.ERROR if answer.get("is_error") else StopReason.COMPLETED
        return stop, answer.get("result"), self._results(ROOT)

    def abort_turn(self, agent: str) -> None:
        with self._lock:
            running = list(self._running)
        for process in running:
            self._kill(process)

    def close(self) -> None:
        self.abort_turn(ROOT)
        super().close()


def make_target() -> ClaudeCodeTarget:
    return ClaudeCodeTarget()
