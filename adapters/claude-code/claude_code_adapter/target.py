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

import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    AgentRef,
    DeploymentConfig,
    Event,
    Invocation,
    ModelReply,
    ModelRequest,
    Observation,
    ProviderInfo,
    RunResult,
    SdkCall,
    Section,
    SessionHeader,
    StartRequest,
    SubagentToolConfig,
    TargetInfo,
    ToolCall,
    ToolResult,
    ToolSchema,
    ToolSpec,
    ViewEntry,
)
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.mcp_echo import McpTools
from subagent_tck.spec import (
    Capability,
    Edition,
    ErrorCode,
    Origin,
    PresentationMode,
    StopReason,
    TckError,
)

from . import agents_dir
from .proxy import Proxy, Route

HERE = Path(__file__).resolve().parent
ADAPTER = HERE.parent
CLAUDE = ADAPTER / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
VERSION = "2.1.197"
PROVIDER = "agent"  # Claude Code's Agent tool with a project agent (docs/claude-code.md)
SERVER = "tck"  # the MCP server's name: its tools are mcp__tck__NAME
ROOT = "root"
RUN_TIMEOUT = float(os.environ.get("SUBAGENT_TCK_CLAUDE_TIMEOUT", "60"))
#: How long a tool change waits for a running ``claude`` to re-list its MCP tools, in seconds.
RELIST_TIMEOUT = 2.0


def wire_name(tool: str) -> str:
    """The name Claude Code gives the kit's global tool ``tool`` (served by MCP server tck)."""
    return f"mcp__{SERVER}__{tool}"


def _unsupported(what: str, instead: str) -> TckError:
    """The answer to an optional operation Claude Code cannot express (docs/driver-api.md
    lists which operations may be answered so)."""
    return TckError(ErrorCode.UNSUPPORTED_OPERATION, f"Claude Code has no {what}: {instead} "
                    "(docs/claude-code.md#operations)")


def _no_component(what: str, instead: str) -> TckError:
    """The subagent-tool component's operations: Claude Code ships no such component (its
    info lists none), so the kit never asks for them; a call is a malformed configuration."""
    return TckError(ErrorCode.INVALID_CONFIG, f"Claude Code has no {what}: {instead} "
                    "(docs/claude-code.md#operations)")


def _slug(value: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:40] or "preset"


class ClaudeCodeTarget:
    def __init__(self) -> None:
        if not CLAUDE.is_file():
            raise TckError(ErrorCode.USAGE, f"{CLAUDE} is missing: run `cd adapters/claude-code "
                           "&& npm ci`")
        self._proxy: Proxy | None = None
        self._lock = threading.Lock()
        self._names = itertools.count(1)
        directory = os.environ.get(agents_dir.ENV)  # the user's definitions (agents_dir.py)
        self._definitions = agents_dir.load(directory) if directory else []

    def info(self) -> TargetInfo:
        return TargetInfo(name="claude-code (via subagent-tck adapters/claude-code)",
                          version=VERSION, editions=[Edition.PRESET_COMPOSITION], components=[],
                          providers=[_provider()])

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> ClaudeCodeDeployment:
        base = getattr(gateway, "base_url", None)
        if not isinstance(base, str):
            raise TckError(ErrorCode.INVALID_CONFIG, "the Claude Code adapter runs behind the "
                           "driver API only: serve it with adapters/claude-code/server.py")
        with self._lock:
            if self._proxy is None:
                self._proxy = Proxy()
            name = f"d{next(self._names)}"
        return ClaudeCodeDeployment(config, base, self._proxy, name, self._definitions)

    def close(self) -> None:
        if self._proxy is not None:
            self._proxy.close()


def _provider() -> ProviderInfo:
    return ProviderInfo(name=PROVIDER, capabilities=[Capability.PERSONA, Capability.TOOL_FILTER])


class ClaudeCodeDeployment:
    def __init__(self, config: DeploymentConfig, gateway_url: str, proxy: Proxy,
                 name: str, definitions: list[agents_dir.Definition] | None = None) -> None:
        if config.mode is not PresentationMode.NATIVE:
            raise _unsupported(f"{config.mode.value} presentation mode",
                               "every tool is a native tool schema (no run_code)")
        self.config = config
        self.dir = Path(tempfile.mkdtemp(prefix="tck-claude-"))
        self.project = self.dir / "project"
        (self.project / ".claude" / "agents").mkdir(parents=True)
        (self.dir / "home").mkdir()
        self._mcp_tools = McpTools(self.dir / "mcp")
        self._lock = threading.RLock()
        self.tools: list[ToolSpec] = list(config.tools)
        self._mcp_tools.write([t.model_dump() for t in self.tools])
        command = self._mcp_tools.command()
        self._mcp = self.dir / "mcp.json"
        self._mcp.write_text(json.dumps({"mcpServers": {SERVER: {
            "type": "stdio", "command": command[0], "args": command[1:]}}}), encoding="utf-8")
        self.presets = {p.name: p for p in config.presets}
        self._log: list[Event] = []
        self.children: dict[str, SessionHeader] = {}
        self._seen_invocations = 0
        self._invocations: list[Invocation] = []
        self._ids = itertools.count(1)
        self._starts: dict[str, dict[str, Any]] = {}
        self._running: set[subprocess.Popen[bytes]] = set()
        self._provider = True
        self._turns = 0  # root turns running (their Agent calls may start preset children)
        self.name = name
        self.route = Route(gateway_url, self._drive)
        self.url = proxy.mount(name, self.route)
        self._proxy = proxy
        for index, preset in enumerate(config.presets):  # a root turn may call Agent with one
            self._write_agent(f"tck-preset-{index}-{_slug(preset.name)}", preset.persona,
                              preset.toolFilter, f"preset:{preset.name}")
        self.definitions = list(definitions or ())  # the user's own, as they wrote them
        agents_dir.install(self.definitions, self.project / ".claude" / "agents")

    # --- files ---------------------------------------------------------------------------

    def _write_tools(self) -> set[str] | None:
        """Give the MCP server the tools of ``self.tools`` (the lock held): their names when a
        ``claude`` of this deployment runs and was told (list_changed), None when none runs (the
        next one lists them fresh)."""
        self._mcp_tools.write([t.model_dump() for t in self.tools])
        return {t.name for t in self.tools} if self._running else None

    def _relisted(self, names: set[str] | None) -> None:
        """Wait (the lock not held) until a running ``claude`` has re-listed ``names``, at most
        :data:`RELIST_TIMEOUT` seconds: one that does not re-list keeps its list, and the
        adapter goes on."""
        if names is not None:
            self._mcp_tools.wait_listed(names, RELIST_TIMEOUT)

    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str) -> None:
        lines = ["---", f"name: {file}",
                 f"description: {json.dumps('subagent-tck agent ' + agent)}"]
        if isinstance(tool_filter, dict):
            for key, field in (("allow", "tools"), ("deny", "disallowedTools")):
                if key in tool_filter:
                    lines.append(f"{field}: {json.dumps(_names(tool_filter[key]))}")
        lines.append("---")
        body = persona if isinstance(persona, str) else "" if persona is None else \
            json.dumps(persona)
        text = "\n".join(lines) + "\n" + (body + "\n" if body else "") + agent_marker(agent) + "\n"
        (self.project / ".claude" / "agents" / f"{file}.md").write_text(text, encoding="utf-8")

    # --- running claude ----------------------------------------------------------------

    def _system(self, agent: str, extra: str = "") -> str:
        persona = self.config.persona or ""
        return (persona + "\n" if persona else "") + agent_marker(agent) + extra

    def _claude(self, prompt: str, system: str) -> subprocess.CompletedProcess[bytes]:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir / "home"),
               "ANTHROPIC_BASE_URL": self.url, "ANTHROPIC_API_KEY": "sk-subagent-tck-offline",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "CLAUDE_CODE_MAX_RETRIES": "0", "NO_PROXY": "127.0.0.1,localhost"}
        if "SUBAGENT_TCK_ADAPTER" in os.environ:  # the kit's marker: its cleanup finds claude
            env["SUBAGENT_TCK_ADAPTER"] = os.environ["SUBAGENT_TCK_ADAPTER"]
        command = [str(CLAUDE), "-p", prompt, "--system-prompt", system, "--tools", "Agent",
                   "--mcp-config", str(self._mcp), "--strict-mcp-config",
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

    def _drive(self, request: ModelRequest, token: str, body: dict[str, Any]) -> ModelReply:
        """The parent of a kit ``start``: call Agent once, then end (proxy.Route)."""
        with self._lock:
            start = self._starts.get(token)
        if start is None:
            return ModelReply(text="unknown start", stopReason=StopReason.ERROR)
        for message in request.messages:
            if message.role == "tool" and message.toolCallId == start["call"]:
                start["result"] = message
                return ModelReply(text="done")
        return ModelReply(toolCalls=[ToolCall(id=start["call"], name="Agent", arguments={
            "description": "subagent-tck start", "prompt": start["prompt"],
            "subagent_type": start["file"]})])

    # --- the Deployment protocol -------------------------------------------------------

    def root(self) -> AgentRef:
        return AgentRef(agent=ROOT, session=f"{ROOT}-session", depth=0)

    def create_agent(self, *, header_depth: Any = 0, runtime_depth: Any = None,
                     has_runtime_depth: bool = False) -> AgentRef:
        raise _unsupported("top-level agents with a stored delegation depth",
                           "each `claude -p` is one top-level session at depth 0")

    def put_session_header(self, header: SessionHeader) -> None:
        raise _unsupported("writable session headers", "its transcripts carry no depth")

    def resume(self, session: str) -> AgentRef:
        if session not in {h.session for h in self.sessions()}:
            raise TckError(ErrorCode.UNKNOWN_SESSION, f"no session {session!r}")
        raise _unsupported("cold resume of a subagent's session", "its parent continues a "
                           "subagent with SendMessage while the parent session lives")

    def sessions(self) -> list[SessionHeader]:
        with self._lock:
            return [SessionHeader(session=f"{ROOT}-session"), *self.children.values()]

    def agents(self) -> list[str]:
        with self._lock:
            seen = set(self.route.last)
            named = [f"preset:{p}" for p in self.presets] + [d.agent for d in self.definitions]
            return [ROOT, *self.children] + [  # a root turn's Agent children, once they can run
                a for a in named if self._turns or a in seen]

    def _event(self, kind: str, agent: str | None, data: dict[str, Any] | None = None) -> None:
        with self._lock:
            self._log.append(Event(seq=len(self._log) + 1, kind=kind, agent=agent,
                                     session=f"{agent}-session" if agent else None,
                                     data=data or {}))

    def events(self) -> list[Event]:
        with self._lock:
            return list(self._log)

    def invocations(self) -> list[Invocation]:
        with self._lock:
            records = self._mcp_tools.invocations()
            for record in records[self._seen_invocations:]:
                name = record["tool"]
                agent = self.route.told.get(name, ROOT)
                self._invocations.append(Invocation(tool=name, agent=agent, origin=Origin.GLOBAL,
                                                    arguments=record.get("arguments")))
            self._seen_invocations = len(records)
            return list(self._invocations)

    def observe(self) -> Observation:
        return Observation(sessions=self.sessions(), agents=self.agents(),
                           events=self.events(), invocations=self.invocations())

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        if agent is not None:
            raise _unsupported("scope-local tools", "an agent's tools are the MCP servers and "
                               "built-ins its definition names")
        with self._lock:
            if any(t.name == tool.name for t in self.tools):
                raise TckError(ErrorCode.DUPLICATE_TOOL, f"a global tool {tool.name!r} exists")
            self.tools.append(tool)
            names = self._write_tools()
        self._relisted(names)

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        if agent is not None:
            raise _unsupported("scope-local tools", "nothing to unregister")
        with self._lock:
            if not any(t.name == name for t in self.tools):
                raise TckError(ErrorCode.UNKNOWN_TOOL, f"no global tool {name!r}")
            self.tools = [t for t in self.tools if t.name != name]
            names = self._write_tools()
        self._relisted(names)

    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise _unsupported("live restriction of a running agent's tools",
                           "an agent's tools are fixed by its definition (tools, "
                           "disallowedTools) when it starts")

    def dispose_restriction(self, agent: str, handle: str) -> None:
        raise _unsupported("live restriction of a running agent's tools", "nothing to "
                           "dispose")

    def set_mode(self, agent: str, mode: PresentationMode) -> None:
        self._known(agent)
        if mode is not PresentationMode.NATIVE:
            raise _unsupported(f"{mode.value} presentation mode", "every tool is native")

    def _known(self, agent: str) -> None:
        if agent not in self.agents():
            raise TckError(ErrorCode.UNKNOWN_AGENT, f"no agent {agent!r}")

    def _seen(self, agent: str) -> ModelRequest | None:
        with self.route.lock:
            return self.route.last.get(agent)

    def tool_schemas(self, agent: str) -> list[ToolSchema]:
        """What the agent's last request carried; the root before its first run: Agent and
        the kit's global tools as Claude Code names them (its schema as the last run showed)."""
        self._known(agent)
        seen = self._seen(agent)
        if seen is not None:
            return list(seen.tools)
        if agent != ROOT:
            return []
        return [ToolSchema(name="Agent", parameters={"type": "object"})] + [
            ToolSchema(name=t.name, description=t.description, parameters=t.parameters)
            for t in self.tools]

    def view(self, agent: str | None = None) -> list[ViewEntry]:
        if agent is None:
            return [ViewEntry(name=t.name, origin=Origin.GLOBAL, description=t.description)
                    for t in self.tools]
        return [ViewEntry(name=s.name, origin=Origin.GLOBAL, description=s.description)
                for s in self.tool_schemas(agent)]

    def lookup(self, agent: str, name: str) -> ViewEntry | None:
        return next((v for v in self.view(agent) if v.name == name), None)

    def execute(self, agent: str, name: str, arguments: dict[str, Any]) -> ToolResult:
        raise _unsupported("direct tool execution outside a model turn",
                           "a tool runs when the agent's model calls it (run-turn)")

    def sdk_bindings(self, agent: str) -> list[str]:
        self._known(agent)
        return []

    def run_code(self, agent: str, calls: list[SdkCall]) -> list[ToolResult]:
        self._known(agent)  # native only: run_code is never offered, no name is bound
        return [ToolResult(isError=True, code="UNKNOWN_TOOL",
                           content="Claude Code has no run_code tool") for _ in calls]

    def prompt(self, agent: str) -> list[Section]:
        self._known(agent)
        seen = self._seen(agent)
        if seen is not None:
            return [Section(name="system", text=seen.system)]
        if agent == ROOT and self.config.persona:
            return [Section(name="persona", text=self.config.persona)]
        return []

    def providers(self) -> list[ProviderInfo]:
        return [_provider()] if self._provider else []

    def remove_provider(self, name: str) -> None:
        if name != PROVIDER or not self._provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"no provider {name!r}")
        self._provider = False
        self._event("provider.removed", None, {"provider": name})

    def add_provider(self, name: str) -> None:
        if name != PROVIDER:
            raise TckError(ErrorCode.NO_PROVIDER, f"Claude Code has no provider {name!r}: its "
                           f"one is {PROVIDER!r} (the Agent tool)")
        self._provider = True
        self._event("provider.added", None, {"provider": name})

    def start(self, request: StartRequest) -> RunResult:
        controls = request.controls()
        if request.parent not in self.agents():
            raise TckError(ErrorCode.UNKNOWN_AGENT, f"no agent {request.parent!r}")
        if request.provider != PROVIDER or not self._provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"no provider {request.provider!r}")
        if "maxDepth" in controls:
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "provider agent does not "
                           "advertise depthLimit: Claude Code's Agent tool takes no depth")
        if "outputSchema" in controls:
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "provider agent does not "
                           "advertise outputSchema")
        if "persona" in controls or "toolFilter" in controls:
            raise TckError(ErrorCode.REQUEST_CONTROLS_REFUSED, "Claude Code's Agent call takes "
                           "description, prompt and subagent_type: persona and tools come "
                           "from the agent definition (the preset)")
        preset = None
        if "preset" in controls:
            preset = self.presets.get(request.preset) if isinstance(request.preset, str) \
                else None
            if preset is None:
                raise TckError(ErrorCode.UNKNOWN_PRESET, f"no preset {request.preset!r}")
            if preset.outputSchema is not None:
                raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "provider agent does not "
                               "advertise outputSchema")
        if request.parent != ROOT:
            raise _unsupported("delegation from a subagent", "the Agent tool is offered to "
                               "the top-level session only")
        with self._lock:
            number = next(self._ids)
        child = f"child-{number}"
        file = f"tck-child-{number}"
        self._write_agent(file, preset.persona if preset else None,
                          preset.toolFilter if preset else None, child)
        descriptor: dict[str, Any] = {"provider": PROVIDER}
        if preset is not None:
            descriptor["preset"] = preset.name
        token = f"s{number}"
        with self._lock:
            self.children[child] = SessionHeader(session=f"{child}-session",
                                                 parent=f"{ROOT}-session", delegationDepth=1,
                                                 descriptor=descriptor)
            self._starts[token] = {"call": f"toolu_tck_{number}", "prompt": request.prompt,
                                   "file": file}
        self._event("agent.published", child, {"depth": 1, "snapshot": {
            "view": [], "prompt": []}})
        self._event("run.started", child)
        try:
            done = self._claude(f"start {child}", self._system(ROOT, f"\n[subagent-tck "
                                                                      f"start={token}]"))
        except TckError:
            self._event("run.stopped", child, {"stopReason": StopReason.ERROR.value})
            raise
        result = self._starts[token].get("result")
        if result is None:
            stop = StopReason.ERROR
            output: Any = done.stderr.decode("utf-8", "replace")[-500:] or \
                done.stdout.decode("utf-8", "replace")[-500:]
        else:
            stop = StopReason.ERROR if result.isError else StopReason.COMPLETED
            output = result.content
        self._event("run.stopped", child, {"stopReason": stop.value})
        return RunResult(agent=child, session=f"{child}-session", depth=1, stopReason=stop,
                         output=output, toolResults=self._results(child))

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

    def run_turn(self, agent: str, prompt: str) -> RunResult:
        self._known(agent)
        if agent != ROOT:
            raise _unsupported("turns of a finished subagent run by the host",
                               "the parent continues it with SendMessage")
        self._event("run.started", ROOT)
        with self._lock:
            self._turns += 1
        try:
            done = self._claude(prompt, self._system(ROOT))
        except TckError:
            self._event("run.stopped", ROOT, {"stopReason": StopReason.ERROR.value})
            raise
        finally:
            with self._lock:
                self._turns -= 1
        stop = StopReason.COMPLETED
        output: Any = None
        try:
            answer = json.loads(done.stdout)
            output = answer.get("result")
            if answer.get("is_error"):
                stop = StopReason.ERROR
        except ValueError:
            stop = StopReason.ERROR
            output = done.stderr.decode("utf-8", "replace")[-500:]
        self._event("run.stopped", ROOT, {"stopReason": stop.value})
        return RunResult(agent=ROOT, session=f"{ROOT}-session", depth=0, stopReason=stop,
                         output=output, toolResults=self._results(ROOT))

    def abort_turn(self, agent: str) -> None:
        with self._lock:
            running = list(self._running)
        for process in running:
            self._kill(process)

    def load_subagent_tool(self, config: SubagentToolConfig) -> None:
        raise _no_component("configurable subagent tool", "its Agent tool is built in")

    def unload_subagent_tool(self, tool_name: str) -> None:
        raise _no_component("configurable subagent tool", "its Agent tool is built in")

    def set_host_depth(self, value: Any) -> None:
        raise _no_component("depth setting", "a subagent cannot start subagents")

    def set_runtime_context(self, enabled: bool) -> None:
        raise _no_component("runtime-context notices", "")

    def close(self) -> None:
        self.abort_turn(ROOT)
        self._proxy.unmount(self.name)
        shutil.rmtree(self.dir, ignore_errors=True)


def _names(value: Any) -> Any:
    """A filter list as Claude Code names the tools: the kit's names are its MCP tools."""
    if isinstance(value, list):
        return [wire_name(v) if isinstance(v, str) else v for v in value]
    return value


def make_target() -> ClaudeCodeTarget:
    return ClaudeCodeTarget()
