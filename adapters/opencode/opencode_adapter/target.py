"""opencode as a kit target: each deployment a fresh project directory with its own
``opencode serve``, each kit run a session of that server (docs/opencode.md, "How the adapter
maps the kit's concepts").

- the deployment persona is the prompt of opencode's root agent ``build``
  (``agent.build.prompt``); the kit's global tools are served by the deployment's MCP servers
  (the kit's echo server; ``tck`` for a tool that names none), so the model sees them as
  ``SERVER_NAME``; a section guiding a tool alone on its server is that server's
  instructions (TF-16); opencode's own tools
  (``bash``, ``read``, ...; found once per adapter by a probe) are denied to every agent in
  ``opencode.json`` but ``task``, the provider, which is the target's own tool
  (docs/certify.md#tools-the-target-brings);
- a preset is a project agent ``.opencode/agent/NAME.md`` (``mode: subagent``): body = persona,
  the tool filter as ordered ``permission`` rules (an allow list: ``"*": deny`` first, then each
  allowed tool ``allow``; then each denied tool ``deny``: opencode's last matching rule wins);
- the kit's ``start`` is a session of ``build`` whose model (answered by the adapter, proxy.py)
  calls ``task`` with a fresh agent made from the preset; the child's requests go to the kit's
  gateway, attributed by the marker planted in its body; what an agent sees is its last
  request; a ``run-turn`` of the root is a message to the root's session, every request of
  which the kit answers.

Operations opencode has no counterpart for are ``UNSUPPORTED_OPERATION``, with what opencode
offers instead (docs/driver-api.md#unsupported-operations; docs/opencode.md, "Operations").
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from typing import Any, ClassVar

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    PresetSpec,
    TargetInfo,
    ToolSchema,
)
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.traffic import (
    ROOT,
    Outcome,
    TrafficDeployment,
    deny_lists,
    root_preset,
)
from subagent_tck.conformance.transports.traffic_refusals import Reasons
from subagent_tck.conformance.transports.traffic_routes import TrafficTarget, probed
from subagent_tck.conformance.transports.traffic_starts import (
    UNSET,
    Lineage,
    Start,
    start_marker,
    token,
)
from subagent_tck.spec import ErrorCode, StopReason, TckError, model_problem

from . import dialect
from .outcome import delegated, outcome
from .proxy import PROBE, SERVER, Proxy, Route, wire_name
from .rules import (
    PROVIDER,
    allows_task,
    permission,
    rule_name,
    task_rules_of,
    with_policy,
    withheld,
)
from .serve import CONFIG_REFUSALS, OPENCODE, Serve

VERSION = "1.18.33"
RUN_TIMEOUT = float(os.environ.get("SUBAGENT_TCK_OPENCODE_TIMEOUT", "60"))
#: How long a tool registration waits for a running opencode to list the MCP server's tools
#: again after the server announced the change (it goes on either way).
RELIST = 2.0
#: The definitions written with the deployment for a start that names no preset, and for a
#: made-up ancestor of a created agent (task allowed, opencode's own rules).
PLAIN = "tck-plain"
FILLER = "tck-filler"


class OpencodeTarget(TrafficTarget[Proxy]):
    runtime = "opencode"
    folder = "opencode"
    version = VERSION
    provider = PROVIDER
    depth_limit = True  # subagent_depth (opencode.json)
    model_selection = True  # an agent's model, the configuration's (docs/opencode.md)
    spawn_policy = True  # an agent's task rules (rules.py)
    #: task's description lists the agent types the calling agent's task rules leave it
    #: (ToolRegistry.describeTask, 1.18.33), which SP-02 reads
    delegation_tool = PROVIDER

    def __init__(self) -> None:
        if not OPENCODE.exists():
            raise TckError(ErrorCode.USAGE, f"{OPENCODE} is missing: run `cd adapters/opencode "
                           "&& npm install`")
        super().__init__(Proxy)
        self._builtins: list[ToolSchema] | None = None

    def builtins(self) -> list[ToolSchema]:
        """opencode's own tools as its root agent is offered them, seen once: a probe
        deployment's root is asked one question the adapter answers (proxy.PROBE)."""
        with self._lock:
            if self._builtins is not None:
                return self._builtins
            assert self._proxy is not None
            probe = OpencodeDeployment(DeploymentConfig(), "http://127.0.0.1:9", self._proxy,
                                       "probe", [])

        def ask() -> Callable[[], str]:
            serve = probe.serve()
            serve.prompt(serve.session("subagent-tck probe"), f"{PROBE} list your tools")
            return serve.tail

        seen = probed(probe, ask, "opencode", "built-in tools")
        with self._lock:
            self._builtins = [t for t in seen.tools if not t.name.startswith(SERVER + "_")]
            return self._builtins

    def info(self) -> TargetInfo:
        return dialect.declared(super().info())

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> OpencodeDeployment:
        base, proxy, name = self._endpoint(gateway)
        return OpencodeDeployment(config, base, proxy, name, self.builtins())


class OpencodeDeployment(TrafficDeployment[Route]):
    runtime = "opencode"
    page = "docs/opencode.md#operations"
    provider = PROVIDER
    tool = PROVIDER
    nesting = True  # a subagent whose rules allow task may call it (opencode 1.18.33)
    depth_limit = True  # subagent_depth (opencode.json)
    model_selection = True
    spawn_policy = True  # an agent's task rules (rules.py)
    delegation_tool = PROVIDER  # task (SP-02 reads what it offers)
    refusal_words: ClassVar[dict[ErrorCode, tuple[str, ...]]] = {
        ErrorCode.DEPTH_EXCEEDED: ("Subagent depth limit reached",),
        # a task rule denies the agent type (Permission.ask's DeniedError, 1.18.33)
        ErrorCode.SPAWN_DENIED: ("The user has specified a rule which prevents you from using "
                                 "this specific tool call",)}
    call_prefix = "call_tck_"
    agents_folder = ".opencode/agent"
    temp_prefix = "tck-opencode-"
    relist = RELIST
    #: a section guiding a tool alone on its server is that server's MCP instructions, which
    #: opencode gives an agent while its rules leave it one of that server's tools (TF-16)
    guidance_as_instructions = True
    reasons = Reasons(
        create_agent="each session's root agent is at depth 0",
        put_session_header="its sessions carry no depth",
        resume=("cold resume of a subagent's session by the host", "a parent continues a "
                "child by calling task with the task_id it was given"),
        register_tool="an agent's tools are the built-ins and MCP servers its permission rules "
                      "leave",
        install_restriction="an agent's tools are fixed by its permission rules when it starts",
        start=("delegation from a subagent started by the host", "a subagent delegates by "
               "calling task itself, when its rules allow task"),
        run_turn="its parent continues it by calling task with its task_id",
        set_host_depth=("depth component", "its cap is the subagent_depth setting"))

    def __init__(self, config: DeploymentConfig, gateway_url: str, proxy: Proxy, name: str,
                 builtins: list[ToolSchema]) -> None:
        self._root_preset = root_preset(config)  # refused before anything is made
        self._denied = {b.name: "deny" for b in builtins if b.name != PROVIDER}
        deny_lists(config.permissions, "opencode")  # refused before anything is made
        super().__init__(config)
        self._rules = self._permission_rules(config.permissions)
        # each preset's agent (its file): the root's task rules name them (_build)
        self._preset_files = self.preset_files
        self._file_agents = {PLAIN: PLAIN, **{f: f"preset:{n}"
                                              for n, f in self._preset_files.items()}}
        # opencode's own tools but task (the provider) are denied to every agent: the kit's
        # tools are what the rules judge, and an own tool's name is one the kit cannot give
        # (docs/opencode.md, "How the adapter maps the kit's concepts")
        self.builtins = [b for b in builtins if b.name == PROVIDER]
        self._serve: Serve | None = None
        self._stale = False  # agents written or tools changed since opencode last read them
        self._sessions: set[str] = set()  # opencode sessions of running turns
        self._root: str | None = None  # the root's opencode session (run-turn)
        self._depth_written: Any = UNSET  # subagent_depth as opencode.json holds it
        # every model a run may name, declared under the provider (opencode runs only on a
        # model its configuration lists): the deployment's, the presets', a start's own
        self._models: list[str] = []
        for model in (config.model, *(p.model for p in config.presets)):
            self._declare(model, ErrorCode.INVALID_CONFIG)
        route = Route(gateway_url, self._drive, lambda: list(self.known_tools), self._attribute,
                      self._wire_name)
        route.builtins = {b.name for b in builtins}
        self._mount(proxy, name, route)
        self._write_config()
        self._write_presets()  # a root turn may call task with one; a start calls it with one
        self._write_agent(PLAIN, None, None, PLAIN)  # a start that names no preset
        self._write_agent(FILLER, None, {PROVIDER: "allow"}, FILLER)  # a made-up ancestor

    def _write_config(self) -> None:
        """The project's opencode.json: the model provider on the adapter's endpoint, the kit's
        MCP servers, opencode's own tools but task denied, the root's prompt (the persona and
        its marker) and ``subagent_depth`` when a depth was given."""
        config: dict[str, Any] = {
            "$schema": "https://opencode.ai/config.json", "autoupdate": False,
            "share": "disabled", "small_model": "tck/subagent-tck",
            "model": f"tck/{self.config.model}" if self.config.model is not None
            else "tck/subagent-tck",
            "provider": {"tck": {"npm": "@ai-sdk/openai-compatible", "name": "subagent-tck",
                                 "options": {"baseURL": self.url, "apiKey": "none"},
                                 "models": {name: {"name": name, "tool_call": True}
                                            for name in ["subagent-tck", *self._models]}}},
            "mcp": {name: {"type": "local", "command": argv, "enabled": True}
                    for name, argv in self.mcp.commands().items()},
            **({"permission": self._rules} if self._rules else {}),
            "agent": {"build": self._build()},
        }
        if self._depth_written is not UNSET:
            config["subagent_depth"] = self._depth_written
        (self.project / "opencode.json").write_text(json.dumps(config, indent=1),
                                                    encoding="utf-8")

    def _build(self) -> dict[str, Any]:
        """The root agent ``build``: the deployment persona, or the root preset's persona, and
        its filter and spawn policy as ``build``'s own permission rules (the root channel,
        dialect.py); the root's marker after the prompt."""
        root = self._root_preset
        persona = self.config.persona if root is None else root.persona
        text = persona if isinstance(persona, str) else "" if persona is None else \
            json.dumps(persona)
        build: dict[str, Any] = {"prompt": text + agent_marker(ROOT)}
        rules = None if root is None else with_policy(  # its spawn policy as task rules
            None if root.toolFilter is None else permission(root.toolFilter, self._wire_name),
            root.spawnPolicy,
            self._preset_files)
        if rules is not None:
            build["permission"] = rules
        return build

    def _wire_name(self, name: str) -> str:
        """How opencode names the kit's global tool ``name``: ``SERVER_NAME`` by the server
        that serves it (the default one for a tool the deployment never had)."""
        tool = self.known_tools.get(name)
        return wire_name(name, self.mcp.server_of(tool) if tool else self.mcp.default)

    def _permission_rules(self, permissions: Any) -> dict[str, str]:
        """opencode.json's own permission rules: opencode's tools but task denied, then each
        entry of the deployment's deny lists denied (the permission channel: deny rules only,
        dialect.py)."""
        rules = dict(self._denied)
        for entries in deny_lists(permissions, "opencode"):
            for name in entries if isinstance(entries, list) else [entries]:
                rules[rule_name(name, self._wire_name) if isinstance(name, str)
                      else json.dumps(name)] = "deny"
        return rules

    def _child_definition(self, number: int, preset: PresetSpec | None, agent: str,
                          written: list[str], model: str | None = None,
                          spawn_policy: Any = None) -> str:
        """The preset's own definition (written with the deployment: a fresh file per start
        would cost opencode a reload of its whole configuration), whose preset's marker the
        endpoint attributes to the start's child while it runs (:meth:`_attribute`). A start
        whose model or spawn policy is not its preset's (the request's own) pays for a fresh
        definition, marked with the child's agent id, the model declared in the
        configuration, the policy as its task rules (rules.py)."""
        if model == (preset.model if preset is not None else None) and \
                spawn_policy == (preset.spawnPolicy if preset is not None else None):
            return self._preset_files[preset.name] if preset is not None else PLAIN
        file = f"tck-child-{number}"
        with self._lock:
            if self._declare(model):
                self._write_config()
        self._write_agent(file, preset.persona if preset else None,
                          preset.toolFilter if preset else None, agent, model=model,
                          spawn_policy=spawn_policy)
        written.append(file)
        return file

    def _declare(self, model: Any, code: ErrorCode = ErrorCode.INVALID_REQUEST) -> bool:
        """Declare ``model`` under the provider (opencode's ``tck/MODEL``); True when it is
        new. A model is a non-empty string (docs/rules.md#MO-01): anything else is refused
        with ``code`` (a deployment's or preset's: INVALID_CONFIG; a start's: INVALID_REQUEST),
        since opencode names a model only as PROVIDER/MODEL text."""
        if model is None or model in self._models:
            return False
        problem = model_problem(model)
        if problem:
            raise TckError(code, f"{problem}: opencode names a model "
                           "PROVIDER/MODEL, the adapter writes tck/NAME for a model name")
        self._models.append(model)
        return True

    def _link_definition(self, number: int, level: int, link: Lineage,
                         written: list[str]) -> str:
        """The definition the link's child was started with (a made-up ancestor of a created
        agent: one that may delegate, opencode denying task to a subagent whose rules name
        none); the link's task prompt carries its start marker, which the adapter's endpoint
        reads in the user text (traffic_starts.Start.drive)."""
        return FILLER if link.filler else link.file

    def _attribute(self, agent: str) -> str:
        """Who a request marked ``agent`` is: the child of the start that runs now with that
        definition (a preset's or the plain one), else ``agent`` itself."""
        with self._lock:
            for start in self._pending.values():
                if self._file_agents.get(start.child.file) == agent and not start.reached:
                    return start.child.agent
        return agent

    def _admits_tool(self, link: Lineage) -> bool:
        """opencode lets a subagent call task only where its rules allow it (its task tool
        denies it to a subagent whose permission names no task rule): a filler, an allow
        list naming task (and no deny of it), or task rules of a spawn policy that its filter
        leaves in place (rules.with_policy)."""
        return link.filler or self._task_rules(link) is not None or \
            allows_task(link.tool_filter)

    def _task_rules(self, link: Lineage | None) -> Any:
        """The task rules of ``link``'s definition (None: the root's): rules.task_rules_of."""
        root = self._root_preset
        return task_rules_of(*((link.tool_filter, link.spawn_policy) if link is not None else
                               (root.toolFilter, root.spawnPolicy) if root is not None else
                               (None, None)), self._preset_files, self._wire_name)

    def _withheld(self, link: Lineage | None) -> bool:
        """Whether opencode withholds task from ``link`` (None: the root): rules.withheld."""
        return withheld(self._task_rules(link))

    # --- files and the server ----------------------------------------------------------

    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str,
                     marker: str | None = None, model: str | None = None,
                     spawn_policy: Any = None) -> None:
        front = [f"description: {json.dumps('subagent-tck agent ' + agent)}", "mode: subagent"]
        if model is not None:  # on the provider's model of that name (declared: _declare)
            front.append(f"model: {json.dumps('tck/' + model)}")
        rules = with_policy(permission(tool_filter, self._wire_name) if tool_filter is not None
                            else None, spawn_policy, self._preset_files)
        if rules is not None:
            front.append(f"permission: {json.dumps(rules)}")
        self._write_definition(file, front, persona, agent, marker)
        with self._lock:
            self._stale = True

    def serve(self) -> Serve:
        """The deployment's ``opencode serve``, started at its first run; the configuration
        read again when agents or tools changed since."""
        with self._lock:
            if self._serve is None:
                self._serve = Serve(self.project, self.dir / "home", RUN_TIMEOUT)
                self._stale = False
            elif self._stale:
                self._serve.reload()
                self._stale = False
            return self._serve

    def _listening(self) -> bool:
        return self._serve is not None

    def _unlisted(self) -> None:
        with self._lock:  # not listed again: the next run reads the configuration again
            self._stale = True

    def _tools_mark(self) -> Any:  # the serve and its event counts (events.py)
        return None if self._serve is None else (self._serve, self._serve.events.mark())

    def _taken_in(self, servers: set[str], mark: Any, timeout: float) -> bool:
        # stored, then said (events.py); a server connected afresh is listed before any use
        return mark is None or self.mcp.connected_since_write(servers) or bool(
            mark[0].events.wait(servers, mark[1], timeout))

    def _own_tools(self) -> list[ToolSchema]:
        """task, the one of opencode's own tools its agents keep (as the adapter's probe saw
        it)."""
        return list(self.builtins)

    def _turn(self, session: str, text: str) -> Any:
        serve = self.serve()
        with self._lock:
            self._sessions.add(session)
        try:
            return serve.prompt(session, text)
        finally:
            with self._lock:
                self._sessions.discard(session)

    def _run_start(self, start: Start) -> Outcome:
        self._depth(start.setting)
        serve = self.serve()
        child = start.child.agent
        session = serve.session(f"subagent-tck start {child}")
        self._turn(session, f"start {child} {start_marker(token(start.number, 0))}")
        parent = self._session_at(serve, session, start.last)
        done = None if parent is None else self._child(serve, parent, 1)
        if parent is not None:  # what the parent's call of task got, as opencode recorded it
            start.delegated = delegated(serve.call("GET", f"/session/{parent}/message") or [],
                                        start.call_id(start.last))
        result = start.result
        if done is None or result is None:
            return StopReason.ERROR, (result.content if result is not None else
                                      f"no child session: {serve.tail()}"), []
        stop, output, results = done
        return stop, result.content if stop is StopReason.COMPLETED else output, results

    def _child(self, serve: Serve, session: str, depth: int) -> Outcome | None:
        """How the child the start's task call made ended, from opencode's own record of its
        session ``depth`` levels below ``session`` (each link's one child); None when there is
        none."""
        found = self._session_at(serve, session, depth)
        if found is None:
            return None
        messages = serve.call("GET", f"/session/{found}/message") or []
        return outcome(messages)

    @staticmethod
    def _session_at(serve: Serve, session: str, depth: int) -> str | None:
        """The session ``depth`` levels below ``session`` (each level's first child), or
        None."""
        for _ in range(depth):
            children = serve.call("GET", f"/session/{session}/children") or []
            if not children:
                return None
            session = children[0]["id"]
        return session

    def _depth(self, setting: Any) -> None:
        """opencode.json's ``subagent_depth`` is ``setting`` (UNSET: none, opencode's default
        of 1) for the runs that follow; opencode reads the configuration again when it
        changed. A number JSON cannot hold (NaN, an infinity) is refused as a malformed
        request, as the driver API refuses one on its wire (docs/driver-api.md#conventions)."""
        if isinstance(setting, float) and not math.isfinite(setting):
            raise TckError(ErrorCode.INVALID_REQUEST, f"subagent_depth {setting!r}: "
                           "opencode.json is JSON, which has no such number")
        with self._lock:
            if _same(setting, self._depth_written):
                return
            before, self._depth_written = self._depth_written, setting
            self._write_config()
            self._stale = True
        try:
            self.serve().session("subagent-tck configuration")  # opencode reads it: judged
        except TckError as exc:
            if exc.code not in CONFIG_REFUSALS:  # opencode refused the configuration (serve.py)
                raise
            with self._lock:  # the configuration opencode refused is taken back, and the
                # server that read it is stopped: opencode keeps answering with that refusal
                # until it is started again (its dispose fails the same way)
                self._depth_written = before
                self._write_config()
                serve, self._serve = self._serve, None
            if serve is not None:
                serve.close()
            raise TckError(ErrorCode.INVALID_DEPTH, f"opencode refused subagent_depth "
                           f"{setting!r}: {exc.message[-400:]}") from None

    def _run_root(self, prompt: str) -> Outcome:
        self._depth(self.host_depth)
        serve = self.serve()
        if self._root is None:
            self._root = serve.session("subagent-tck root")
        answer = self._turn(self._root, prompt)
        messages = serve.call("GET", f"/session/{self._root}/message") or []
        asked = (answer or {}).get("info", {}).get("parentID")
        return outcome([m for m in messages if m.get("info", {}).get("parentID") == asked])

    def abort_turn(self, agent: str) -> None:
        with self._lock:
            serve, sessions = self._serve, list(self._sessions)
        for session in sessions if serve is not None else []:
            serve.abort(session)  # type: ignore[union-attr]

    def close(self) -> None:
        with self._lock:
            serve, self._serve = self._serve, None
        if serve is not None:
            serve.close()
        super().close()


def make_target() -> OpencodeTarget:
    return OpencodeTarget()


def _same(one: Any, other: Any) -> bool:
    """Whether two depth settings write the same opencode.json (``-0.0`` is not ``0``; a
    type counts)."""
    return type(one) is type(other) and json.dumps(one) == json.dumps(other) if \
        one is not UNSET and other is not UNSET else one is other
