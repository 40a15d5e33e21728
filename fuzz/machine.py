"""The Hypothesis state machine: random driver operations on ONE deployment, against the oracle.

Each example deploys the target once (edition and presentation mode drawn first) and then runs
rules, each a driver operation turned into a :class:`~.step.Step` and applied by the
:class:`~.lockstep.Lockstep`, which compares the target with the spec oracle after every step
(rule ids per observation: :mod:`.rulemap`). Agents, restrictions and sessions are drawn as
small integers taken modulo what exists, which keeps drawing cheap and shrinking effective.
Names come from a small alphabet (:mod:`.strategies`), so collisions, re-registration,
case variants and the reserved ``run_code`` occur often.

Use :func:`machine_for` to get a machine class bound to one target; ``Stats`` counts steps and
the observations compared, across examples.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule
from subagent_tck.conformance.protocol import TargetInfo
from subagent_tck.conformance.target import Target
from subagent_tck.spec import Edition, PresentationMode

from . import strategies as fs
from .lockstep import NO_SUCH_PROVIDER, PRESETS, Lockstep, Setup
from .step import Divergence, Step

_AGENT = st.integers(min_value=0, max_value=7)
_MODES = tuple(m.value for m in PresentationMode)
_PRESET_NAMES = (*PRESETS, "missing")
_READS = ("view", "global-view", "schemas", "sdk", "lookup", "execute", "prompt", "headers")


@dataclass
class Stats:
    """What a campaign ran: examples, steps, and how often each observation was compared."""

    examples: int = 0
    steps: int = 0
    operations: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.perf_counter)
    #: (steps run, seconds) when the first divergence was seen, before shrinking
    first_divergence: tuple[int, float] | None = None

    def merge_steps(self, steps: list[Step]) -> None:
        self.steps += len(steps)
        self.operations.update(s.op for s in steps)


class FuzzMachine(RuleBasedStateMachine):
    """Bound to a target by :func:`machine_for`; not usable on its own."""

    target: ClassVar[Target]
    info: ClassVar[TargetInfo]
    editions: ClassVar[tuple[Edition, ...]]
    stats: ClassVar[Stats]

    def __init__(self) -> None:
        super().__init__()
        self.lock: Lockstep | None = None

    # --- helpers ------------------------------------------------------------------------

    def _apply(self, op: str, **args: Any) -> None:
        assert self.lock is not None
        try:
            self.lock.apply(Step(op=op, args=args))
        except Divergence:
            stats = self.stats
            if stats.first_divergence is None:
                steps = stats.steps + len(self.lock.steps)
                stats.first_divergence = (steps, time.perf_counter() - stats.started)
            raise

    def _agent(self, index: int) -> str:
        assert self.lock is not None
        labels = list(self.lock.model.agents)
        return labels[index % len(labels)]

    def _session(self, index: int) -> str:
        assert self.lock is not None
        labels = list(self.lock.model.sessions)
        return labels[index % len(labels)]

    # --- set-up and tear-down -----------------------------------------------------------

    @initialize(
        edition=st.integers(0, 1),
        mode=st.sampled_from(_MODES),
        tools=st.lists(st.sampled_from(fs.REGISTER_NAMES[:-1]), max_size=4, unique=True),
    )
    def deploy(self, edition: int, mode: str, tools: list[str]) -> None:
        setup = Setup(
            self.editions[edition % len(self.editions)], PresentationMode(mode), tuple(tools)
        )
        self.stats.examples += 1
        self.lock = Lockstep(self.target, setup, self.info)

    def teardown(self) -> None:
        if self.lock is not None:
            self.stats.merge_steps(self.lock.steps)
            self.lock.close()

    # --- tools: the global registry and one scope -----------------------------------------

    @rule(name=st.sampled_from(fs.REGISTER_NAMES), remove=st.integers(min_value=0, max_value=2))
    def global_tool(self, name: str, remove: int) -> None:
        self._apply("unregister_global" if remove == 2 else "register_global", name=name)

    @rule(agent=_AGENT, name=st.sampled_from(fs.REGISTER_NAMES),
          remove=st.integers(min_value=0, max_value=2))
    def local_tool(self, agent: int, name: str, remove: int) -> None:
        op = "unregister_local" if remove == 2 else "register_local"
        self._apply(op, agent=self._agent(agent), name=name)

    @rule(agent=_AGENT, shape=fs.restriction_shapes())
    def restrict(self, agent: int, shape: tuple[object, ...]) -> None:
        assert self.lock is not None
        value = fs.restriction_from(shape, self.lock.model.globals)
        self._apply("restrict", agent=self._agent(agent), value=value)

    @rule(agent=_AGENT, which=st.integers(min_value=0, max_value=15))
    def dispose(self, agent: int, which: int) -> None:
        assert self.lock is not None
        label = self._agent(agent)
        issued = [*self.lock.model.agents[label].scope.issued, f"{label}.forged"]
        self._apply("dispose", agent=label, restriction=issued[which % len(issued)])

    @rule(agent=_AGENT, mode=st.sampled_from(_MODES))
    def set_mode(self, agent: int, mode: str) -> None:
        self._apply("set_mode", agent=self._agent(agent), mode=mode)

    # --- reading (the lockstep also reads views and presentation after every change) -----

    @rule(kind=st.sampled_from(_READS), agent=_AGENT, name=st.sampled_from(fs.CALL_NAMES))
    def observe(self, kind: str, agent: int, name: str) -> None:
        if kind == "headers":
            self._apply("headers")
        elif kind == "global-view":
            self._apply("view", agent=None)
        elif kind in ("lookup", "execute"):
            self._apply(kind, agent=self._agent(agent), name=name)
        else:
            self._apply(kind, agent=self._agent(agent))

    # --- agents, children, sessions -----------------------------------------------------

    @rule(header=fs.header_depths(), runtime=fs.runtime_depths())
    def create_agent(self, header: fs.DepthText, runtime: fs.DepthText | None) -> None:
        self._apply(
            "create_agent", header={"json": header.text},
            runtime=None if runtime is None else {"json": runtime.text},
        )

    @rule(
        parent=_AGENT,
        provider=st.integers(min_value=0, max_value=7),
        max_depth=fs.max_depths(),
        preset=st.one_of(st.none(), st.none(), st.sampled_from(_PRESET_NAMES)),
        persona=fs.personas(),
        tool_filter=st.one_of(st.none(), st.none(), fs.restriction_shapes()),
        output_schema=fs.output_schemas(),
        carry=st.integers(min_value=0, max_value=3),
    )
    def start(
        self, parent: int, provider: int, max_depth: fs.DepthText | None, preset: str | None,
        persona: object, tool_filter: tuple[object, ...] | None, output_schema: object,
        carry: int,
    ) -> None:
        assert self.lock is not None
        names = [*(p.name for p in self.info.providers), NO_SUCH_PROVIDER]
        controls: dict[str, Any] = {}
        if max_depth is not None:
            controls["maxDepth"] = {"json": max_depth.text}
        if preset is not None:
            controls["preset"] = preset
        # request persona/toolFilter are refused in the preset edition (EN-02): send them
        # there only now and then, so that most starts get further
        edition = self.lock.setup.edition
        if edition is Edition.REQUEST_CONTROLS or carry == 0:
            if persona is not fs.OMIT:
                controls["persona"] = persona
            if tool_filter is not None:
                controls["toolFilter"] = fs.restriction_from(tool_filter, self.lock.model.globals)
        if output_schema is not fs.OMIT:
            controls["outputSchema"] = output_schema
        # the last provider index is rare: a provider no target ships (CA-05)
        chosen = names[provider % (len(names) - 1)] if provider < 7 else names[-1]
        self._apply("start", parent=self._agent(parent), provider=chosen, controls=controls)

    @rule(session=_AGENT, depth=st.one_of(st.none(), fs.header_depths()))
    def plant(self, session: int, depth: fs.DepthText | None) -> None:
        """Cold-resume a session, after writing its stored header depth (DE-06, DE-09)."""
        label = self._session(session)
        if depth is None:
            self._apply("resume", session=label)
        else:
            self._apply("plant", session=label, depth={"json": depth.text})


def machine_for(target: Target, info: TargetInfo | None = None) -> type[FuzzMachine]:
    """A machine class bound to ``target`` (its editions from ``target.info()``)."""
    info = info or target.info()
    editions = tuple(info.editions) or (Edition.PRESET_COMPOSITION,)

    class TargetMachine(FuzzMachine):
        pass

    TargetMachine.target = target
    TargetMachine.info = info
    TargetMachine.editions = editions
    TargetMachine.stats = Stats()
    return TargetMachine
