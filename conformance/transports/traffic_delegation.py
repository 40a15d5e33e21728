"""How a deployment of a runtime seen from its model traffic starts children (a base of
:class:`~subagent_tck.conformance.transports.traffic.TrafficDeployment`): the checks of a
start's controls, the start itself from the root or from a child (its ancestors played by the
start driver, traffic_starts.py), publication at the child's first request, the depth setting,
and agents created at a depth (docs/claude-code.md "Delegation from a child", docs/opencode.md).
"""

from __future__ import annotations

import itertools
import json
import threading
from abc import abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from subagent_tck.conformance.core.protocol import (
    AgentRef,
    ModelReply,
    ModelRequest,
    PresetSpec,
    RunResult,
    SessionHeader,
    StartRequest,
    ToolResult,
)
from subagent_tck.conformance.transports.traffic_refusals import Refusals
from subagent_tck.conformance.transports.traffic_starts import (
    Lineage,
    Start,
    parse_token,
    refusal,
    start_marker,
    token,
)
from subagent_tck.spec import Capability, ErrorCode, StopReason, TckError, check_depth

ROOT = "root"  # the kit's root agent; every agent's session is "{agent}-session"

#: How a start or a root turn ended, as the runtime showed it: stop reason, output, tool results.
Outcome = tuple[StopReason, Any, list[Any]]


class Delegation(Refusals):
    """The starts of a traffic deployment. The deployment brings its state (the lock, the
    agents it published, its presets) and the runtime's side (:meth:`_run_start`,
    :meth:`_write_agent`)."""

    provider: ClassVar[str]  # the one provider's name
    call_prefix: ClassVar[str]  # a start's scripted call id: this and the start's number
    #: The start driver's stop reason for a start token it does not know.
    unknown_start: ClassVar[StopReason] = StopReason.COMPLETED
    #: Whether a child may start children (its own call of the tool, traffic_starts.py).
    nesting: bool = False
    #: Whether the provider advertises depthLimit: the runtime's depth setting takes maxDepth.
    depth_limit: bool = False
    #: Whether the provider advertises modelSelection: an agent definition carries a model,
    #: which a start's model (the request's, else its preset's) is written as.
    model_selection: ClassVar[bool] = False
    #: Whether the provider advertises spawnPolicy: an agent definition carries which agents
    #: it may start, which a start's policy (the request's, else its preset's) is written as.
    spawn_policy: ClassVar[bool] = False
    #: The runtime's own tool a model starts children with, where SP-02 reads what it offers
    #: (ProviderInfo.delegationTool; None: not read).
    delegation_tool: str | None = None
    #: Whether the runtime's model wire marks a tool result errored (Anthropic Messages'
    #: ``is_error``), so that a start reports what its parent's call of the tool got
    #: (RunResult.delegated, docs/rules.md#ST-09); False: Chat Completions, which has no flag
    #: (an adapter may still set ``Start.delegated`` from the runtime's own record: opencode).
    wire_tool_errors: ClassVar[bool] = False
    #: The most agents a start from a deep parent nests to stand for its ancestors (a parent
    #: created deeper is a probe: traffic_starts.Lineage.truncated).
    deepest: ClassVar[int] = 8
    #: How the runtime words the refusals of a start the adapter translates by their words:
    #: its depth cap (DEPTH_EXCEEDED), a definition it refuses (traffic_starts.refusal).
    refusal_words: ClassVar[dict[ErrorCode, tuple[str, ...]]] = {}
    #: How an agent definition's file name ends (``_write_agent`` writes FILE + this).
    definition_suffix: ClassVar[str] = ".md"

    _lock: threading.RLock
    _ids: itertools.count[int]
    _provider: bool  # whether the provider is registered now
    presets: dict[str, PresetSpec]
    agents_dir: Path
    children: dict[str, SessionHeader]
    lineage: dict[str, Lineage]  # a published child -> what it was written from
    _created: set[str]  # the agents create_agent made
    _starts: dict[int, Start]
    _pending: dict[str, Start]  # a child not published yet -> its start
    host_depth: Any  # the depth setting for runs without a maxDepth, or UNSET

    @abstractmethod
    def agents(self) -> list[str]: ...

    @abstractmethod
    def _event(self, kind: str, agent: str | None, data: dict[str, Any] | None = None
               ) -> None: ...

    @abstractmethod
    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str,
                     marker: str | None = None, model: str | None = None) -> None: ...

    @abstractmethod
    def _run_start(self, start: Start) -> Outcome:
        """Run ``start`` (its top-level session carries ``[subagent-tck start=sN]``, each link
        ``[subagent-tck start=sN-K]``, all answered by :meth:`_drive`) until its child ended,
        with ``start.setting`` as the runtime's depth setting (UNSET: the runtime's default)."""

    def _child_definition(self, number: int, preset: PresetSpec | None, agent: str,
                          written: list[str], model: str | None = None,
                          spawn_policy: Any = None) -> str:
        """The definition start ``number``'s parent calls the tool with: a fresh one made from
        the preset, with the start's composed ``model`` (None: none, the parent's), its body
        marked with the new child's agent id (appended to ``written``), and ``spawn_policy``
        where the runtime has one (:meth:`_policy`)."""
        file = f"tck-child-{number}"
        self._write_agent(file, preset.persona if preset else None,
                          preset.toolFilter if preset else None, agent, model=model,
                          **self._policy(spawn_policy), **self._locals(preset))
        written.append(file)
        return file

    def _policy(self, spawn_policy: Any) -> dict[str, Any]:
        """The keyword that hands a definition's spawn policy to ``_write_agent``: only for a
        runtime that advertises spawnPolicy (:attr:`spawn_policy`), whose adapter writes it."""
        return {"spawn_policy": spawn_policy} if self.spawn_policy else {}

    @staticmethod
    def _locals(preset: PresetSpec | None) -> dict[str, Any]:
        """The keyword that hands a preset's own tools to ``_write_agent`` (only a preset
        with tools has one: an adapter without ``preset_tools`` refused it)."""
        return {"tools": preset.tools} if preset is not None and preset.tools else {}

    def _remove_definition(self, file: str) -> None:
        """Remove the agent definition ``file`` the adapter wrote."""
        (self.agents_dir / f"{file}{self.definition_suffix}").unlink(missing_ok=True)

    def _link_definition(self, number: int, level: int, link: Lineage,
                         written: list[str]) -> str:
        """The definition standing for ``link`` at ``level`` of start ``number``: ``link``'s
        own, written afresh with the level's start marker instead of its agent's
        (traffic_starts.py; appended to ``written``)."""
        file = f"tck-link-{number}-{level}"
        self._write_agent(file, link.persona, link.tool_filter, link.agent,
                          start_marker(token(number, level)), model=link.model)
        written.append(file)
        return file

    def _admits_tool(self, link: Lineage) -> bool:
        """Whether ``link``, as the adapter writes it, keeps the runtime's delegation tool (by
        default: no filter, or one that names it in its allow list and not in its deny list:
        docs/claude-code.md "Delegation from a child")."""
        tool_filter = link.tool_filter
        if not isinstance(tool_filter, dict):
            return True
        allow, deny = tool_filter.get("allow"), tool_filter.get("deny")
        return (not isinstance(allow, list) or self._names_tool(allow)) and \
            not (isinstance(deny, list) and self.tool in deny)

    def _names_tool(self, names: list[Any]) -> bool:
        """Whether an allow list admits the delegation tool: its name (or, where the runtime
        reads one, a typed entry ``TOOL(type)``)."""
        return self.tool in names

    def _withheld(self, link: Lineage | None) -> bool:
        """Whether the runtime withholds its delegation tool from ``link`` (None: the root, run
        from its preset) for the spawn policy its definition carries (a policy that refuses
        every agent); none by default."""
        return False

    def _drive(self, request: ModelRequest, token: str) -> ModelReply:
        """A driven agent of a kit ``start`` (its top-level session or a link): call the tool
        once with the next agent of the chain, keep its result, then end."""
        parsed = parse_token(token)
        with self._lock:
            start = self._starts.get(parsed[0]) if parsed is not None else None
        if start is None or parsed is None or parsed[1] > start.last:
            return ModelReply(text="unknown start", stopReason=self.unknown_start)
        return start.drive(request, parsed[1], self.tool)

    def create_agent(self, *, header_depth: Any = 0, runtime_depth: Any = None,
                     has_runtime_depth: bool = False) -> AgentRef:
        """A top-level agent at depth ``header_depth``: where children delegate (``nesting``)
        an agent at depth d is the d-th of nested subagents, so a start from it runs d
        ancestors the adapter plays (at most :attr:`deepest`, traffic_starts.Lineage), each
        written with no filter of its own; at depth 0 it stands where the top-level session
        does. A runtime depth, or a depth outside the domain, has no such counterpart
        (docs/claude-code.md "Depth")."""
        if not self.nesting:
            return super().create_agent(header_depth=header_depth, runtime_depth=runtime_depth,
                                        has_runtime_depth=has_runtime_depth)
        if has_runtime_depth:
            raise self._unsupported("runtime depth of an agent", "an agent's depth is how deep "
                                    "it is nested, nothing a runtime value may deepen")
        verdict = check_depth(header_depth)
        if verdict.value is None:
            raise self._unsupported(f"agent at the stored depth {header_depth!r}", "it stores "
                                    "no depth: an agent's depth is how deep it is nested")
        depth = verdict.value
        with self._lock:
            name = f"agent-{next(self._ids)}"
        line: Lineage | None = None
        for level in range(1, min(depth, self.deepest + 1)):
            line = Lineage(f"{name}/{level}", "", None, None, level, None,
                           line.chain if line is not None else (), filler=True)
        own = Lineage(name, "", None, None, depth, None, line.chain if line is not None else (),
                      filler=True)
        header = SessionHeader(session=f"{name}-session", delegationDepth=depth)
        with self._lock:
            self.lineage[name] = own
            self.children[name] = header
            self._created.add(name)
        return AgentRef(agent=name, session=header.session, depth=depth)

    def _published(self, agent: str, request: ModelRequest) -> None:
        """A child's first request reached the adapter: it is published now, with what that
        request carries as its snapshot (traffic_starts.py)."""
        with self._lock:
            start = self._pending.get(agent)
            if start is None or start.published:
                return
            start.published = True
            line = start.child
            self.children[agent] = start.header
            self.lineage[agent] = line
        self._event("agent.published", agent, {"depth": line.depth, "snapshot": {
            "view": sorted(t.name for t in request.tools),
            "prompt": [["system", request.system]]}})
        self._event("run.started", agent)

    def _start_preset(self, request: StartRequest) -> PresetSpec | None:
        """The preset a start asks for (None: none), once the start is one the runtime can
        make: the tool's call takes a description, a prompt and the agent, so a depth, an output
        schema, a persona or a filter of the call's own is refused (a depth too, unless the
        runtime has a depth setting: ``depth_limit``); its parent is the root, or a child where
        children delegate (``nesting``)."""
        # a control given as null counts as absent, but for maxDepth, where null is a value
        # outside the depth domain (docs/rules.md#TF-07 Decision, docs/rules.md#DE-05)
        controls = {k: v for k, v in request.controls().items()
                    if v is not None or k == "maxDepth"}
        if request.parent not in self.agents():
            raise TckError(ErrorCode.UNKNOWN_AGENT, f"no agent {request.parent!r}")
        if request.provider != self.provider or not self._provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"no provider {request.provider!r}")
        if "maxDepth" in controls and not self.depth_limit:
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, f"provider {self.provider} does "
                           f"not advertise depthLimit: {self.runtime}'s {self.tool} tool takes "
                           "no depth")
        if "outputSchema" in controls:
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, f"provider {self.provider} does "
                           "not advertise outputSchema")
        if "persona" in controls or "toolFilter" in controls:
            raise TckError(ErrorCode.REQUEST_CONTROLS_REFUSED, f"{self.runtime}'s {self.tool} "
                           "call takes description, prompt and subagent_type: persona and tools "
                           "come from the agent definition (the preset)")
        preset = None
        if "preset" in controls:
            preset = self.presets.get(request.preset) if isinstance(request.preset, str) \
                else None
            if preset is None:
                raise TckError(ErrorCode.UNKNOWN_PRESET, f"no preset {request.preset!r}")
            if preset.outputSchema is not None:
                raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, f"provider {self.provider} "
                               "does not advertise outputSchema")
        unmapped = [] if self.spawn_policy else [("spawnPolicy", Capability.SPAWN_POLICY)]
        if not self.model_selection:
            unmapped.append(("model", Capability.MODEL_SELECTION))
        for field, capability in unmapped:
            # not mapped onto the runtime (docs/driver-api.md#spawn-policies-and-models):
            # refused as the unadvertised control it is here, never dropped (CA-01)
            if controls.get(field) is not None or getattr(preset, field, None) is not None:
                raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, f"provider {self.provider} "
                               f"does not advertise {capability.value}",
                               {"capability": capability.value})
        if request.parent != ROOT and not (self.nesting and request.parent in self.lineage):
            raise self._unsupported(*self.reasons["start"])
        return preset

    def start(self, request: StartRequest) -> RunResult:
        """A child of the root or of a child: an agent definition made from the preset, run by
        the runtime (:meth:`_run_start`) as its parent's call of the tool, the parent's
        ancestors played by the start driver (traffic_starts.py); published at its first
        request. A start the runtime refused before the child asked its model publishes
        nothing and is refused here (traffic_starts.refusal)."""
        preset = self._start_preset(request)
        persona = preset.persona if preset else None
        tool_filter = preset.toolFilter if preset else None
        with self._lock:
            number = next(self._ids)
            parent = self.lineage.get(request.parent)
        links = parent.chain if parent is not None else ()
        written: list[str] = []  # the definitions this start wrote (its own to remove)
        # the request's model wins over its preset's (docs/rules.md#MO-01); None: the parent's
        model = request.model if request.model is not None else \
            preset.model if preset is not None else None
        # so is the request's spawn policy over its preset's (docs/driver-api.md#spawn-policies-
        # and-models); a runtime without spawnPolicy never gets here with one (_start_preset)
        policy = request.spawnPolicy if request.spawnPolicy is not None else \
            preset.spawnPolicy if preset is not None else None
        file = self._child_definition(number, preset, f"child-{number}", written, model,
                                      policy)
        child = Lineage(f"child-{number}", file, persona, tool_filter, len(links) + 1,
                        request.parent, links, model=model, spawn_policy=policy)
        link_files = tuple(self._link_definition(number, level, link, written)
                           for level, link in enumerate(links, 1))
        descriptor: dict[str, Any] = {"provider": self.provider}
        if preset is not None:
            descriptor["preset"] = preset.name
        header = SessionHeader(session=f"{child.agent}-session", parent=f"{request.parent}-session",
                               delegationDepth=child.depth, descriptor=descriptor)
        start = Start(number, child, request.prompt, links, link_files, header,
                      setting=request.maxDepth if "maxDepth" in request.controls()
                      else self.host_depth, call_prefix=self.call_prefix,
                      probe=parent is not None and parent.truncated)
        with self._lock:
            self._starts[number] = start
            self._pending[child.agent] = start
        try:
            stop, output, results = self._run_start(start)
        except TckError:
            if start.published:
                self._event("run.stopped", child.agent, {"stopReason": StopReason.ERROR.value})
            raise
        finally:
            with self._lock:
                self._pending.pop(child.agent, None)
            for file in written:  # the child's stays once it is published
                if start.published and file == child.file:
                    continue
                self._remove_definition(file)
        if not start.published:
            if start.reached:
                raise self._unsupported(f"agent as deep as {request.parent} (depth "
                                        f"{parent.depth if parent else 0})",
                                        f"its depth is how deep it is nested, and "
                                        f"{self.runtime} let a chain of {len(links)} nested "
                                        "agents through: the adapter builds no deeper one")
            refused = refusal(start, self.runtime, self.tool, self.refusal_words,
                              self._admits_tool,
                              output if isinstance(output, str) else json.dumps(output),
                              self._withheld)
            if refused.code is ErrorCode.SPAWN_DENIED and isinstance(request.preset, str):
                # the runtime's words name its own agent; the kit's preset is the one asked for
                raise TckError(ErrorCode.SPAWN_DENIED, f"the preset {request.preset!r}: "
                               f"{refused.message}", {"preset": request.preset})
            raise refused
        self._event("run.stopped", child.agent, {"stopReason": stop.value})
        got = start.result
        delegated = start.delegated or (ToolResult(isError=got.isError, content=got.content)
                                        if self.wire_tool_errors and got is not None else None)
        return RunResult(agent=child.agent, session=header.session, depth=child.depth,
                         stopReason=stop, output=output, toolResults=results,
                         delegated=delegated)

    def set_host_depth(self, value: Any) -> None:
        """The runtime's depth setting for the runs that follow, where it has one (the value as
        given: the runtime reads it); INVALID_CONFIG where it has none (no component lists
        it)."""
        if not self.depth_limit:
            raise self._no_component(*self.reasons["set_host_depth"])
        with self._lock:
            self.host_depth = value
