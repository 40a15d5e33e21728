"""Codex CLI as a kit target: each deployment a fresh project directory with its own
``CODEX_HOME`` (``project/.codex``), each kit run a ``codex exec`` (docs/codex.md, "How the
adapter maps the kit's concepts").

- the deployment persona is the root agent's ``developer_instructions`` in ``config.toml``; the
  kit's global tools are served by the deployment's MCP server ``tck`` (the kit's echo server),
  which Codex offers as the namespace ``mcp__tck``; of Codex's own tools only its delegation
  tools (the namespace ``multi_agent_v1``) and the MCP resource tools are left, the target's own
  (docs/certify.md#tools-the-target-brings), found once per adapter by a probe;
- a preset is a custom agent ``CODEX_HOME/agents/NAME.toml``: ``developer_instructions`` =
  persona, the tool filter as its MCP server's ``enabled_tools`` / ``disabled_tools`` (which
  Codex 0.171.0 does not apply to the agent: docs/codex.md "What Codex does instead");
- the kit's ``start`` is a ``codex exec`` whose root (answered by the adapter, proxy.py) calls
  ``spawn_agent`` (with ``agent_type`` = a fresh agent made from the preset; without one, Codex's
  default role: the child inherits the root's instructions), then ``wait_agent`` until the
  child ended; the child's requests go to the kit's gateway, attributed by its marker; what an
  agent sees is its last request; a ``run-turn`` of the root is a ``codex exec`` whose every
  request the kit answers.

Operations Codex has no counterpart for are answered ``UNSUPPORTED_OPERATION``
(docs/driver-api.md#unsupported-operations) with what Codex offers instead (docs/codex.md,
"Operations").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from subagent_tck.conformance.core.dialect import (
    ChannelKind,
    FrameText,
    PromptFrame,
    RestrictionChannel,
)
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    ModelReply,
    ModelRequest,
    TargetInfo,
    ToolCall,
    ToolResult,
    ToolSchema,
)
from subagent_tck.conformance.transports.gateway_anthropic import find_marker
from subagent_tck.conformance.transports.gateway_responses import responses_to_request
from subagent_tck.conformance.transports.traffic import (
    ROOT,
    Outcome,
    deny_lists,
    root_preset,
)
from subagent_tck.conformance.transports.traffic_refusals import Reasons
from subagent_tck.conformance.transports.traffic_routes import TrafficTarget, probed
from subagent_tck.conformance.transports.traffic_runs import RunsDeployment
from subagent_tck.conformance.transports.traffic_starts import (
    Start,
    parse_token,
    start_marker,
    token,
)
from subagent_tck.spec import ErrorCode, StopReason, TckError

from .config import agent_toml, config_toml, instructions
from .proxy import PROBE, START, Proxy, Route, own_tools
from .run import Runs, missing

VERSION = "0.171.0"
PROVIDER = "spawn_agent"  # Codex's spawn_agent tool with a custom agent (docs/codex.md)
SPAWN = "multi_agent_v1__spawn_agent"  # Codex's delegation tools, as the gateway names them
WAIT = "multi_agent_v1__wait_agent"
#: Codex's answer to a call of a tool it did not offer (docs/codex.md).
UNSUPPORTED = "unsupported call"
#: The probe root's persona: where the root's own text ends and Codex's text around it begins.
PROBE_PERSONA = "subagent-tck probe persona"


@dataclass(frozen=True)
class Probe:
    """What one ``codex exec`` of the pinned Codex showed its model: its own tools (as the
    gateway names them -> their namespace) and the text around an agent's instructions."""

    own: dict[str, str | None]
    schemas: list[ToolSchema]
    frame: FrameText


def channels() -> list[RestrictionChannel]:
    """Where a restriction can be put in Codex (docs/codex.md "Dialect"): plain tool names,
    matched exactly, deny after allow: the catalogue's own rules, no variant."""
    return [
        RestrictionChannel(kind=ChannelKind.CHILD,
                           via="a custom agent file's [mcp_servers.tck] enabled_tools / "
                               "disabled_tools"),
        RestrictionChannel(kind=ChannelKind.ROOT,
                           via="the session's config.toml: developer_instructions, "
                               "[mcp_servers.tck] enabled_tools / disabled_tools"),
        RestrictionChannel(kind=ChannelKind.PERMISSION, lists=["deny"],
                           via="config.toml [mcp_servers.tck] disabled_tools, every agent's"),
    ]


class CodexTarget(TrafficTarget[Proxy]):
    runtime = "Codex CLI"
    folder = "codex"
    version = VERSION
    provider = PROVIDER

    def __init__(self) -> None:
        absent = missing()
        if absent is not None:
            raise absent
        super().__init__(Proxy)
        self._probe: Probe | None = None

    def probe(self) -> Probe:
        """Codex's own tools and frame, seen once: a probe deployment's root (its persona
        :data:`PROBE_PERSONA`) is asked one question the adapter answers (proxy.PROBE)."""
        with self._lock:
            if self._probe is not None:
                return self._probe
            if self._proxy is None:
                self._proxy = self._make_proxy()
            deployment = CodexDeployment(DeploymentConfig(persona=PROBE_PERSONA),
                                         "http://127.0.0.1:9", self._proxy, "probe", None)

        def ask() -> Callable[[], str]:
            done = deployment.runs.codex(f"{PROBE} list your tools")
            return lambda: done.stderr.decode("utf-8", "replace")

        seen = probed(deployment, ask, "Codex", "own tools")
        _, system, _ = find_marker(responses_to_request("", seen).system)
        before, _, after = system.partition(PROBE_PERSONA)
        own = own_tools(seen)
        schemas = [t for t in responses_to_request("", seen).tools if t.name in own]
        with self._lock:
            self._probe = Probe(own, schemas, FrameText(before=before, after=after))
            return self._probe

    def info(self) -> TargetInfo:
        frame = self.probe().frame
        return super().info().model_copy(update={
            "restrictionChannels": channels(),
            "promptFrame": PromptFrame(child=frame, root=frame)})

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> CodexDeployment:
        base, proxy, name = self._endpoint(gateway)
        return CodexDeployment(config, base, proxy, name, self.probe())


def _root_definition(config: DeploymentConfig) -> tuple[Any, Any]:
    """The root's persona and tool filter: the deployment's persona, or the preset it starts
    from (``rootPreset``), with the permission rules' deny lists added to its filter (the MCP
    server's ``disabled_tools`` every agent is under, docs/codex.md "Dialect")."""
    preset = root_preset(config)
    persona, tool_filter = (config.persona, None) if preset is None else \
        (preset.persona, preset.toolFilter)
    if config.permissions is None:
        return persona, tool_filter
    denied = [name for entries in deny_lists(config.permissions, "Codex CLI")
              for name in (entries if isinstance(entries, list) else [] if entries is None
                           else [entries])]
    combined = dict(tool_filter) if isinstance(tool_filter, dict) else {}
    combined["deny"] = list(combined.get("deny") or []) + denied
    return persona, combined


class CodexDeployment(RunsDeployment[Route]):
    runtime = "Codex CLI"
    page = "docs/codex.md#operations"
    provider = PROVIDER
    tool = SPAWN
    call_prefix = "call_tck_"
    agents_folder = ".codex/agents"  # CODEX_HOME is the project's .codex
    definition_suffix = ".toml"
    temp_prefix = "tck-codex-"
    unknown_start = StopReason.ERROR
    reasons = Reasons(
        create_agent="each codex exec is one session whose root agent is at depth 0",
        put_session_header="its sessions carry no depth the host can write",
        resume=("cold resume of a subagent's thread by the host", "a parent resumes a closed "
                "child with resume_agent and the id spawn_agent gave it"),
        register_tool="an agent's tools are the session's MCP servers and Codex's own",
        install_restriction="an agent's tools are fixed by the session's configuration when "
                            "it starts",
        start=("delegation from a subagent started by the host", "a subagent delegates by "
               "calling spawn_agent itself, within [agents] max_depth"),
        run_turn="its parent sends it input with send_input and the id spawn_agent gave it",
        set_host_depth=("depth setting of the host", "its cap is [agents] max_depth"))

    def __init__(self, config: DeploymentConfig, gateway_url: str, proxy: Proxy, name: str,
                 probe: Probe | None) -> None:
        persona, tool_filter = _root_definition(config)
        super().__init__(config)
        self.probed = probe
        self.codex_home = self.project / ".codex"
        self.runs = Runs(self.project, self.dir / "home", self.codex_home)
        own = probe.own if probe is not None else {}
        self._refused: dict[int, str] = {}  # a start -> Codex's answer to its spawn_agent call
        self._ended: dict[int, tuple[StopReason, Any]] = {}  # a start -> its child's end
        route = Route(gateway_url, self._drive, lambda: [t.name for t in self.tools],
                      lambda: own)
        self._mount(proxy, name, route)
        # the root's prompt as its user writes it: the persona as written (Codex has no
        # templates) and each section's text, a blank line between
        texts = [persona if isinstance(persona, str) else "" if persona is None
                 else json.dumps(persona), *(s.text for s in config.sections)]
        (self.codex_home / "config.toml").write_text(config_toml(
            self.url, self._server(), instructions("\n\n".join(t for t in texts if t), ROOT),
            tool_filter), encoding="utf-8")
        self._write_presets()  # a root turn may call spawn_agent with one

    # --- files ---------------------------------------------------------------------------

    def _server(self) -> list[str]:
        """The argv of the MCP server ``tck``, which serves every kit tool (Codex declares no
        server-level filter entries: traffic_servers.py)."""
        return self.mcp.commands()[self.mcp.default]

    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str,
                     marker: str | None = None, model: str | None = None) -> None:
        (self.agents_dir / f"{file}{self.definition_suffix}").write_text(
            agent_toml(file, agent, persona, self._server(), tool_filter, marker),
            encoding="utf-8")

    def _own_tools(self) -> list[ToolSchema]:
        """Codex's own tools its root is offered (as the adapter's probe saw them)."""
        return list(self.probed.schemas) if self.probed is not None else []

    # --- the start driver ----------------------------------------------------------------

    def _drive(self, request: ModelRequest, token: str) -> ModelReply:
        """The root of a kit ``start`` (Codex has no start from a child: no links):
        ``spawn_agent`` with the start's agent (none for a start without a preset: Codex's
        default role), then ``wait_agent`` until the child reached a final status (Codex ends a
        session's children when its root's turn ends), then the end."""
        parsed = parse_token(token)
        with self._lock:
            start = self._starts.get(parsed[0]) if parsed is not None and parsed[1] == 0 \
                else None
        if start is None:
            return ModelReply(text="unknown start", stopReason=self.unknown_start)
        outputs = {m.toolCallId: m for m in request.messages if m.role == "tool"}
        spawn = start.call_id(0)
        if spawn not in outputs:
            arguments = {"message": start.prompt}
            if (start.header.descriptor or {}).get("preset") is not None:
                arguments["agent_type"] = start.child.file
            return ModelReply(toolCalls=[ToolCall(id=spawn, name=SPAWN, arguments=arguments)])
        try:
            child = json.loads(str(outputs[spawn].content))["agent_id"]
        except (ValueError, TypeError, KeyError):
            with self._lock:
                self._refused[start.number] = str(outputs[spawn].content)
            return ModelReply(text="done")
        waits = [i for i in outputs if i.startswith(f"{spawn}-wait-")]
        status = _final(outputs[f"{spawn}-wait-{len(waits)}"].content, child) if waits else None
        if status is not None:
            with self._lock:
                self._ended[start.number] = status
            return ModelReply(text="done")
        return ModelReply(toolCalls=[ToolCall(id=f"{spawn}-wait-{len(waits) + 1}", name=WAIT,
                                              arguments={"targets": [child],
                                                         "timeout_ms": 600_000})])

    # --- running codex -------------------------------------------------------------------

    def _run_start(self, start: Start) -> Outcome:
        """A ``codex exec`` whose root is the start's driver (:meth:`_drive`); the child's
        requests carry its own marker (or, without a preset, the root's, which the proxy
        replaces by the child's)."""
        mark, child = token(start.number, 0), start.child.agent
        with self.route.lock:
            self.route.children[mark] = child
        done = self.runs.codex(f"start {child} {start_marker(mark)}")
        with self._lock:
            refused = self._refused.pop(start.number, None)
            status = self._ended.pop(start.number, None)
        if refused is not None:
            raise TckError(ErrorCode.SETUP_FAILED, f"Codex refused to spawn the agent: "
                           f"{refused} ({_warnings(done.stderr)})")
        if status is None:
            return StopReason.ERROR, _tail(done.stderr), self._results(child)
        stop, output = status
        return stop, output, self._results(child)

    def _run_root(self, prompt: str) -> Outcome:
        if START.search(prompt):
            raise TckError(ErrorCode.INVALID_REQUEST, "a root turn's prompt may not carry the "
                           "adapter's start marker")
        done = self.runs.codex(prompt)
        stop = StopReason.COMPLETED if done.returncode == 0 else StopReason.ERROR
        output: Any = done.stdout.decode("utf-8", "replace").strip() if stop is \
            StopReason.COMPLETED else _tail(done.stderr)
        return stop, output, self._results(ROOT)

    def _results(self, agent: str) -> list[ToolResult]:
        """The tool results the agent's last request carried, in order (what Codex answered
        its model's calls); its refusal of a call of a tool it did not offer ("unsupported
        call: NAME") is an errored result with UNKNOWN_TOOL."""
        seen = self._seen(agent)
        if seen is None:
            return []
        return [ToolResult(isError=UNSUPPORTED in str(m.content), content=m.content,
                           code="UNKNOWN_TOOL" if UNSUPPORTED in str(m.content) else None)
                for m in seen.messages if m.role == "tool"]


def _final(content: Any, child: str) -> tuple[StopReason, Any] | None:
    """The child's final status in a ``wait_agent`` result (``{"status": {ID: {"completed":
    TEXT}}, "timed_out": false}``), or None while it runs."""
    try:
        answer = json.loads(str(content))
    except ValueError:
        return StopReason.ERROR, content
    status = (answer.get("status") or {}).get(child) if isinstance(answer, dict) else None
    if status is None:
        return None
    if isinstance(status, dict) and "completed" in status:
        return StopReason.COMPLETED, status["completed"]
    return StopReason.ERROR, status


def _warnings(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").splitlines()
    return " ".join(line for line in lines if "agent role" in line)[:500] or _tail(stderr)


def _tail(stderr: bytes) -> str:
    return stderr.decode("utf-8", "replace")[-500:]


def make_target() -> CodexTarget:
    return CodexTarget()
