"""Claude Code as a kit target: each deployment a fresh project directory, each run a
``claude -p`` (docs/claude-code.md, "How the adapter maps the kit's concepts").

- the deployment persona is the root's system prompt (``--system-prompt``); the kit's global
  tools are served by the deployment's MCP servers (the kit's ``mcp_echo``, one per server a
  tool names, ``tck`` for the others: conformance/transports/traffic_servers.py), so the model
  sees them as ``mcp__SERVER__NAME``; a tool registered or unregistered while a ``claude`` runs
  is announced to it (MCP's ``notifications/tools/list_changed``) and the adapter waits,
  briefly, until it has re-listed; the root's built-in tools are only the delegation tool
  (``--tools Agent``, ``Task`` before 2.1.63);
- a preset is a project agent ``.claude/agents/NAME.md``: body = persona, ``tools`` = allow,
  ``disallowedTools`` = deny (kit tool names written as Claude Code names them, any other entry
  as the kit wrote it: a server-level ``mcp__SERVER``, ``Agent(type)``, a misspelling);
- the kit's ``start`` is a ``claude -p`` whose parent (answered by the adapter, proxy.py) calls
  the delegation tool with a fresh agent definition made from the preset; a start from a child
  runs the child's ancestors as links the adapter plays (conformance/transports/
  traffic_starts.py); the child's requests go to the kit's gateway, attributed by the marker
  planted in its body; what an agent sees is its last request; a ``run-turn`` of the root is a
  ``claude -p`` whose every request the kit answers;
- the root started from a preset (``DeploymentConfig.rootPreset``) is ``--agent NAME``; the
  deployment's permission rules (``DeploymentConfig.permissions``) are the project's
  ``permissions.deny`` (``.claude/settings.json``); both are restriction channels the adapter
  declares (dialect.py).

Operations Claude Code has no counterpart for are answered ``UNSUPPORTED_OPERATION`` (the
driver API's "this runtime cannot express that operation",
docs/driver-api.md#unsupported-operations: the rules whose checks need them are not
applicable) with a message saying what Claude Code offers instead (docs/claude-code.md,
"Operations")."""

from __future__ import annotations

import json
import os
import subprocess
import unicodedata
from pathlib import Path
from typing import Any, ClassVar

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    TargetInfo,
    ToolResult,
    ToolSchema,
    ToolSpec,
)
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.tool_names import names_back
from subagent_tck.conformance.transports.traffic import (
    ROOT,
    Outcome,
    deny_lists,
    root_preset,
)
from subagent_tck.conformance.transports.traffic_refusals import Reasons
from subagent_tck.conformance.transports.traffic_routes import (
    TrafficTarget,
    js_name,
)
from subagent_tck.conformance.transports.traffic_runs import (
    Runs,
    RunsDeployment,
    ended,
    printed,
    setting_text,
)
from subagent_tck.conformance.transports.traffic_starts import UNSET, Start, start_marker, token
from subagent_tck.spec import ErrorCode, StopReason

from . import agents_dir, dialect, install, run
from .proxy import Proxy, Route

PROVIDER = "agent"  # Claude Code's Agent tool with a project agent (docs/claude-code.md)
#: How long a tool change waits for a running ``claude`` to re-list its MCP tools, in seconds.
#: Measured on 2.1.332: it lists a changed server again 0.03 s or 1.0 s after the announcement
#: (a change soon after another waits for the first's re-listing to settle); the 2 s this once
#: was ran out on a loaded machine, and the agent's next request went out without the change
#: (TF-09 came out both ways: docs/claude-code.md#tf-09-timing). A server it never connected
#: to is not waited for (``_listened_servers``).
RELIST_TIMEOUT = 10.0
#: From this version CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH is read (run.SETTING).
SETTING_SINCE = (2, 1, 217)
#: How Claude Code words its refusal for the depth cap (its Agent tool's call, 2.1.181 on).
DEPTH_WORDS = ("Subagent nesting limit reached",)
#: How Claude Code 2.1.332 words its refusal of a definition whose tools resolve to nothing
#: (an entry it does not know, no other left): the adapter's INVALID_TOOL_FILTER.
FILTER_WORDS = ("would be spawned with zero tools",)
#: The definition the root is started from when the deployment names a rootPreset.
ROOT_FILE = "tck-root"
#: How Claude Code 2.1.332 words a call of an agent type the main thread's Agent(type) entries
#: leave out ("Agent type 'T' not found. Available agents: ..."): the same words as for a type
#: no definition has, so the adapter reads them as SPAWN_DENIED only where the root's
#: definition lists types (every start names a definition the adapter wrote).
POLICY_WORDS = ("not found. Available agents:",)


class ClaudeCodeTarget(TrafficTarget[Proxy]):
    runtime = "Claude Code"
    folder = "claude-code"
    provider = PROVIDER
    model_selection = True  # a definition's model, the root's --model (docs/claude-code.md)
    spawn_policy = True  # Agent(type) entries in a definition's tools (docs/claude-code.md)

    def __init__(self) -> None:
        self.install = install.find()
        self.version = self.install.version
        self.depth_limit = self.install.release >= SETTING_SINCE
        #: what Agent offers is read with its agent-type listing (proxy.fold_listing)
        self.delegation_tool = self.install.tool
        super().__init__(Proxy)
        directory = os.environ.get(agents_dir.ENV)  # the user's definitions (agents_dir.py)
        self._definitions = agents_dir.load(directory) if directory else []

    def info(self) -> TargetInfo:
        return dialect.declared(super().info(), self.install)

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> ClaudeCodeDeployment:
        base, proxy, name = self._endpoint(gateway)
        return ClaudeCodeDeployment(config, base, proxy, name, self._definitions, self.install)


class ClaudeCodeDeployment(RunsDeployment[Route]):
    runtime = "Claude Code"
    page = "docs/claude-code.md#operations"
    provider = PROVIDER
    model_selection = True
    #: a definition's ``tools`` lists the agent types it may start as ``Agent(a, b)``; Claude
    #: Code honours those of the main thread's definition (``--agent``), for it and every agent
    #: below it, and not a subagent's own (docs/claude-code.md#spawn-policies)
    spawn_policy = True
    #: a section that guides a tool alone on its server is that server's MCP instructions,
    #: which Claude Code passes on to the model itself (docs/claude-code.md, TF-16)
    guidance_as_instructions = True
    #: Anthropic Messages marks a tool result errored (``is_error``): a start reports what the
    #: parent's call of Agent got (docs/rules.md#ST-09)
    wire_tool_errors = True
    #: a preset's own tools are its definition's own MCP server (``_own_servers``)
    preset_tools = True
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
    refusal_words: ClassVar[dict[ErrorCode, tuple[str, ...]]] = {
        ErrorCode.DEPTH_EXCEEDED: DEPTH_WORDS, ErrorCode.INVALID_TOOL_FILTER: FILTER_WORDS}

    def __init__(self, config: DeploymentConfig, gateway_url: str, proxy: Proxy,
                 name: str, definitions: list[agents_dir.Definition] | None = None,
                 claude: install.Install | None = None) -> None:
        self.claude = claude or install.find()
        self.tool = self.delegation_tool = self.claude.tool
        self.nesting = self.claude.nesting
        self.depth_limit = self.claude.release >= SETTING_SINCE
        self._root_preset = root_preset(config)  # each refused before anything is made
        denied = deny_lists(config.permissions, self.runtime)
        super().__init__(config)
        #: each preset's definition (its agent type), as _write_presets names it
        self._types = self.preset_files
        if self._root_preset is not None and self._root_preset.spawnPolicy is not None:
            self.refusal_words = {**self.refusal_words, ErrorCode.SPAWN_DENIED: POLICY_WORDS}
        self._mcp_config = self.dir / "mcp.json"
        #: the definitions written with servers of their own (a run then may not pass
        #: --strict-mcp-config, which skips them)
        self._owning: set[str] = set()
        #: the kit's names of every preset's own tools (their wire names are the default
        #: server's: _own_servers)
        self._own_named = [t.name for p in config.presets for t in p.tools or ()]
        #: each running ``claude`` with the MCP servers it was started with (the only ones it
        #: lists: it reads --mcp-config once)
        self.runs = Runs("claude -p", "SUBAGENT_TCK_CLAUDE_TIMEOUT")
        self._mount(proxy, name, Route(gateway_url, lambda request, token, body:
                                       self._drive(request, token), {self.tool},
                                       kit=self._kit_name, wire=self._wire_name))
        self._write_presets()  # a root turn may call Agent with one
        if self._root_preset is not None:
            self._write_agent(ROOT_FILE, self._root_preset.persona,
                              self._root_preset.toolFilter, ROOT,
                              spawn_policy=self._root_preset.spawnPolicy)
        if config.permissions is not None:
            self._write_permissions(denied)
        self.definitions = list(definitions or ())  # the user's own, as they wrote them
        agents_dir.install(self.definitions, self.agents_dir)

    # --- names and files -------------------------------------------------------------------

    def _wire_name(self, name: str) -> str:
        """How Claude Code names the kit's global tool ``name``: ``mcp__SERVER__NAME``, server
        and name cleaned as its JavaScript cleans them (2.1.332's ``ur``/``Hn``:
        traffic_routes.js_name), the name in Unicode's NFKC form first (2.1.332 sends the
        tool ``ĳx`` as ``mcp__tck__ijx``, ``ﬁx`` as ``mcp__tck__fix``: seen on its wire)."""
        tool = self.known_tools.get(name)
        server = self.mcp.server_of(tool) if tool is not None else self.mcp.default
        return f"mcp__{js_name(server)}__{js_name(unicodedata.normalize('NFKC', name))}"

    def _kit_name(self, wire: str) -> str:
        """The kit's name of a tool Claude Code names ``wire``: the one global tool the
        deployment ever had with that wire name (one unregistered since included); else the
        longest server prefix cut (a tool no check gave, or two kit names that meet in one wire
        name)."""
        with self._lock:
            # a preset's own tool is named as a global tool of the same name would be
            back = names_back(dict.fromkeys([*self.known_tools, *self._own_named]),
                              self._wire_name)
        if wire in back:
            return back[wire]
        for server in sorted(self.mcp.names(), key=len, reverse=True):
            prefix = f"mcp__{js_name(server)}__"
            if wire.startswith(prefix):
                return wire[len(prefix):]
        return wire

    def _entries(self, value: Any) -> Any:
        """A filter list as Claude Code reads it: the name of a global tool of the deployment
        as Claude Code names that tool; an entry of a declared form on a server of the
        deployment (``mcp__SERVER``, ``mcp__SERVER__*``, ``mcp__SERVER__TOOL``) with the server
        and tool parts named as Claude Code names them; any other entry as the kit wrote it
        (the delegation tool, ``Agent(type)``, ``mcp__*``, a name no tool has:
        docs/driver-api.md#dialect)."""
        if not isinstance(value, list):
            return value
        names = {t.name for t in self.tools}
        return [self._wire_name(v) if v in names else self._spelled(v)
                if isinstance(v, str) else v for v in value]

    def _spelled(self, entry: str) -> str:
        for server in sorted(self.mcp.names(), key=len, reverse=True):
            prefix = f"mcp__{server}"
            if entry == prefix:
                return f"mcp__{js_name(server)}"
            if entry.startswith(prefix + "__"):
                rest = entry[len(prefix) + 2:]
                tool = rest if rest == "*" else js_name(unicodedata.normalize("NFKC", rest))
                return f"mcp__{js_name(server)}__{tool}"
        return entry

    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str,
                     marker: str | None = None, model: str | None = None,
                     spawn_policy: Any = None, types: dict[str, str] | None = None,
                     tools: list[ToolSpec] | None = None) -> None:
        front = [f"name: {file}", f"description: {json.dumps('subagent-tck agent ' + agent)}"]
        if tools:
            front.append(f"mcpServers: {json.dumps(self._own_servers(file, tools))}")
        if model is not None:  # as the kit wrote it: Claude Code decides what it means
            front.append(f"model: {json.dumps(model)}")
        lists = dict(tool_filter) if isinstance(tool_filter, dict) else {}
        if spawn_policy is not None:
            lists = self._typed(lists, spawn_policy, types or self._types)
        for key, field in (("allow", "tools"), ("deny", "disallowedTools")):
            if key in lists:
                front.append(f"{field}: {json.dumps(self._entries(lists[key]))}")
        self._write_definition(file, front, persona, agent, marker)
        if tools:  # a definition with servers of its own is the user's (see _own_servers)
            written = self.agents_dir / f"{file}.md"
            written.replace(self._user_agents / written.name)

    @property
    def _user_agents(self) -> Path:
        """The user's agent definitions (``~/.claude/agents`` of the runs' home)."""
        folder = self.dir / "home" / ".claude" / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def _own_servers(self, file: str, tools: list[ToolSpec]) -> list[dict[str, Any]]:
        """A preset's own tools as its definition's ``mcpServers``: one server defined inline,
        named like the deployment's default server, so that a local tool is named as a global
        one of the same name (``mcp__tck__NAME``, docs/rules.md#TF-05). Claude Code 2.1.332
        connects a definition's inline servers only when it is the user's (``~/.claude/
        agents``: one in the project is an "untrusted agent origin") and the run has no
        ``--strict-mcp-config`` (docs/claude-code.md#own-tools)."""
        argv = self.mcp.own(file, tools)
        with self._lock:
            self._owning.add(file)
        return [{self.mcp.default: {"type": "stdio", "command": argv[0], "args": argv[1:]}}]

    def _remove_definition(self, file: str) -> None:
        super()._remove_definition(file)
        (self._user_agents / f"{file}.md").unlink(missing_ok=True)
        with self._lock:
            self._owning.discard(file)

    def _typed(self, lists: dict[str, Any], policy: Any,
               types: dict[str, str]) -> dict[str, Any]:
        """A definition's ``tools`` and ``disallowedTools`` (``lists``: its filter's) with its
        spawn policy as a Claude Code user writes one: the delegation tool as ``Agent(T1, T2)``
        in ``tools`` for the admitted presets, in ``disallowedTools`` for the refused ones,
        each preset named by the agent type that stands for it (``types``; a name of none as
        written). With no allow list, the agent keeps every tool (each kit server's,
        ``mcp__SERVER``) beside the admitted types; an allow list without the tool keeps the
        agent from delegating at all, and stays as it is. What Claude Code makes of each is
        its own (docs/claude-code.md#spawn-policies): it binds the main thread's admitted types
        alone, ``Agent()`` admits every type, and an ``Agent(...)`` deny entry hides the tool."""
        if not isinstance(policy, dict):
            return lists
        out = dict(lists)

        def entry(names: Any) -> str:
            listed = names if isinstance(names, list) else [names]
            spelled = (types.get(n, n) if isinstance(n, str) else json.dumps(n) for n in listed)
            return f"{self.tool}({', '.join(spelled)})"

        if policy.get("allow") is not None:
            allow = out.get("allow")
            if allow is None:
                out["allow"] = [f"mcp__{server}" for server in sorted(self.mcp.names())] + \
                    [entry(policy["allow"])]
            elif isinstance(allow, list) and self.tool in allow:
                out["allow"] = [entry(policy["allow"]) if e == self.tool else e for e in allow]
        # an empty deny list refuses nothing, and a user writes nothing for it: an empty
        # Agent() in disallowedTools would hide the tool itself
        if policy.get("deny") is not None and policy["deny"] != []:
            deny = out.get("deny")
            out["deny"] = [*(deny if isinstance(deny, list) else []), entry(policy["deny"])]
        return out

    def _write_permissions(self, lists: list[Any]) -> None:
        """The deployment's permission rules as the project's ``permissions.deny``
        (``.claude/settings.json``): every deny list's entries, spelled as Claude Code names
        the tools. Claude Code's allow rules approve calls without asking; they hide nothing,
        so the channel carries deny lists only (dialect.py)."""
        deny: list[Any] = []
        for entries in lists:
            spelled = self._entries(entries)
            deny += spelled if isinstance(spelled, list) else [spelled]
        settings = self.project / ".claude" / "settings.json"
        settings.write_text(json.dumps({"permissions": {"deny": deny}}), encoding="utf-8")

    def _listened_servers(self) -> frozenset[str]:
        """A running ``claude`` connects to the servers of its ``--mcp-config`` when it starts
        and to no other: a kit tool on a server made since (a new ``mcp__SERVER__`` prefix) is
        not listed by it, so the change is not waited for (waiting cost the relist timeout per
        change and changed nothing)."""
        return self.runs.servers()

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
        """The root's ``--system-prompt``: the deployment's prompt as its user writes it, the
        persona (as written: Claude Code has no templates) and each section's text but those
        given as MCP instructions (``instructed``), joined by a blank line; the agent marker
        (or a start's, ``extra``) right after it."""
        texts = [self.config.persona or "", *(s.text for s in self.config.sections
                                              if s.name not in self.instructed)]
        return "\n\n".join(t for t in texts if t) + agent_marker(agent) + extra

    def _claude(self, spec: run.Run) -> subprocess.CompletedProcess[bytes]:
        """One ``claude -p`` run (run.py)."""
        with self._lock:
            self._mcp_config.write_text(run.mcp_config(self.mcp.commands()), encoding="utf-8")
            known = frozenset(self.mcp.names())
            servers = [js_name(server) for server in known]
            strict = not self._owning
        argv = run.command(self.claude, spec, self._mcp_config, servers, self.config.model,
                           strict=strict)
        setting = spec.setting if self.depth_limit else None
        return self.runs.run(argv, self.project, run.environment(self.dir / "home", self.url,
                                                                 setting),
                             run.RUN_TIMEOUT, servers=known)

    def _setting(self, value: Any) -> str | None:
        return None if value is UNSET else setting_text(value)

    def _root_run(self, prompt: str, setting: Any, start: Start | None = None) -> run.Run:
        """A run of the root (or of ``start``'s top-level session, its start marker in place of
        the root's): as the root preset's agent (``--agent``), or with the deployment persona as
        its system prompt."""
        marker = None if start is None else start_marker(token(start.number, 0))
        if self._root_preset is None:
            extra = "" if marker is None else marker
            return run.Run(prompt, system=self._system(ROOT, extra),
                           setting=self._setting(setting))
        file = ROOT_FILE
        if start is not None:
            file = f"{ROOT_FILE}-s{start.number}"
            policy = self._root_preset.spawnPolicy
            if policy is not None and start.links:
                # the main thread's Agent(type) entries bind every agent below it, whose calls
                # name the definitions the adapter writes for this start's links
                raise self._unsupported("start from a child under the root's spawn policy",
                                        "Claude Code applies the main thread's agent types to "
                                        "every call below it, and each link of a start from a "
                                        "child is a definition of its own")
            preset = start.header.descriptor.get("preset") if start.header.descriptor else None
            types = {**self._types, **({preset: start.child.file} if preset else {})}
            self._write_agent(file, self._root_preset.persona, self._root_preset.toolFilter,
                              ROOT, marker, spawn_policy=policy, types=types)
        return run.Run(prompt, agent=file, setting=self._setting(setting))

    def _run_start(self, start: Start) -> Outcome:
        child = start.child.agent
        spec = self._root_run(f"start {child}", start.setting, start)
        try:
            done = self._claude(spec)
        finally:
            if spec.agent not in (None, ROOT_FILE):
                self._remove_definition(spec.agent)
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
        done = self._claude(self._root_run(prompt, self.host_depth))
        answer = printed(done)  # no result object: claude ended before its answer
        return *ended(done, answer if isinstance(answer, dict) else None), self._results(ROOT)


def make_target() -> ClaudeCodeTarget:
    return ClaudeCodeTarget()
