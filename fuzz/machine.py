"""The Hypothesis state machine: random driver operations on ONE deployment, against the oracle.

Each example deploys the target once (:meth:`FuzzMachine.deploy` draws the edition, the initial
presentation mode, the initial global tools, and which operations this example uses) and then
runs steps. Each step is one driver operation (:data:`OPERATIONS`: a global or scope-local tool
registered or removed, a restriction installed or disposed, a spawn policy installed or
disposed, a mode change, a read, an agent created, a child started, a session resumed with or
without a planted header) turned into a
:class:`~.step.Step` and applied by the :class:`~.lockstep.Lockstep`, which compares the target
with the spec oracle after every step (rule ids per observation: :mod:`.rulemap`).

Speed shapes the design: Hypothesis spends most of a step drawing, so the machine has one rule
that draws one byte string per step, and a :class:`~.code.Code` reads the operation and
all its arguments from it (about 1.5x the steps per second of one Hypothesis rule per
operation, measured against the in-process reference). Hypothesis does not shrink: a failure
is shrunk on the decoded steps (:mod:`.shrink`), which are also what gets printed and replayed.
Swarm testing (each example uses a random subset of the operations) is drawn with the
deployment. Agents, restrictions and sessions are small numbers taken modulo what exists.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hypothesis import reject, settings
from hypothesis.internal.reflection import function_digest
from hypothesis.stateful import RuleBasedStateMachine, get_state_machine_test, initialize, rule

from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.conformance.engine import own_tools
from subagent_tck.spec import (
    PROVIDER_MANAGED,
    RUN_CODE,
    Capability,
    Component,
    Edition,
    PresentationMode,
    StopReason,
    TckError,
)

from . import strategies as fs
from .code import Code, codes
from .lexicon import CLASSIC, Lexicon, pick_lexicon
from .lockstep import Lockstep, Setup
from .operations import apply
from .step import Divergence, Finding, Step
from .subagent import tools
from .tool_calls import REPLIES
from .tool_model import TOOL_NAMES

_MODES = tuple(m.value for m in PresentationMode)
_READS = ("view", "global-view", "schemas", "sdk", "lookup", "execute", "prompt", "headers")


@dataclass
class Stats:
    """What a campaign ran: examples, steps, and how often each operation ran."""

    examples: int = 0
    steps: int = 0
    operations: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.perf_counter)
    #: (steps run, seconds) when the first divergence was seen, before shrinking
    first_divergence: tuple[int, float] | None = None
    #: every divergence an example raised (the first ends the campaign, but Hypothesis runs
    #: that example again): what the runs of a flaky example saw, when Hypothesis keeps no
    #: exception of them (the re-run drew other steps: the draws follow the target's answers)
    raised: list[Finding] = field(default_factory=list)
    #: steps applied so far in the example under way (a worker's sign of life)
    applied: int = 0

    def merge_steps(self, steps: list[Step]) -> None:
        self.steps += len(steps)
        self.operations.update(s.op for s in steps)

    def saw(self, divergence: Divergence, steps_before: int) -> None:
        self.raised.append(divergence.finding)
        if self.first_divergence is None:
            steps = steps_before + len(divergence.steps)
            self.first_divergence = (steps, time.perf_counter() - self.started)


#: Bytes of code one operation reads (at most; an exhausted code reads as zeros).
OPERATION_BYTES = 24
#: Operations per step of the state machine. Hypothesis pays its own cost (choosing the rule,
#: drawing its argument, bookkeeping) per step; four operations per step pay it once for four
#: (1,700 -> 2,200 operations per CPU second against the in-process reference, measured with
#: benchmarks/bench_fuzz.py; eight gained little more). Counterexamples are unaffected: the
#: campaign shrinks the decoded operations themselves (:mod:`.shrink`).
BURST = 4


class FuzzMachine(RuleBasedStateMachine):
    """Bound to a target by :func:`machine_for`; not usable on its own."""

    target: ClassVar[Target]
    info: ClassVar[TargetInfo]
    editions: ClassVar[tuple[Edition, ...]]
    stats: ClassVar[Stats]

    operations: ClassVar[tuple[str, ...]]
    #: the target's own global tools (docs/certify.md#tools-the-target-brings): never a name
    #: the machine gives a tool
    own: ClassVar[frozenset[str]] = frozenset()
    #: called with a TckError of the target (unreachable, broken, timed out) before it
    #: propagates: a HypoFuzz worker reports it and stops (fuzz/hypofuzz_target.py), since
    #: to HypoFuzz any exception is a failure to shrink
    fatal: ClassVar[Callable[[TckError], None] | None] = None
    #: called with every divergence before it propagates: a HypoFuzz worker saves its steps
    #: in the shared database (fuzz/hypofuzz_target.py)
    found: ClassVar[Callable[[Divergence], None] | None] = None

    def __init__(self) -> None:
        super().__init__()
        self.lock: Lockstep | None = None
        self.enabled: tuple[str, ...] = self.operations
        #: this deployment's words (presets, variables, core tool names...): see lexicon
        self.lexicon: Lexicon = CLASSIC
        #: this deployment's registrable names (run_code last): see strategies.pick_vocabulary
        self.names: tuple[str, ...] = CLASSIC.register_names
        #: the names this deployment loads subagent tools under: strategies.pick_tool_names
        self.tool_names: tuple[str, ...] = TOOL_NAMES

    # --- set-up, the one rule, tear-down ------------------------------------------------

    @initialize(code=codes(192))
    def deploy(self, code: bytes) -> None:
        c = Code(code)
        edition = c.choose(self.editions)
        mode = PresentationMode(c.choose(_MODES))
        # the words (bytes 64..159), names (32..63) and subagent tool names (160..191) have
        # codes of their own, so that a shrunk byte of one keeps the rest of the set-up
        self.lexicon = pick_lexicon(Code(code[64:160]))
        persona = c.choose(self.lexicon.deployment_personas())
        self.names = tuple(n for n in fs.pick_vocabulary(
            Code(code[32:64]), self.lexicon.register_names) if n not in self.own)
        taken = {*self.names, *self.lexicon.extra_names, *self.lexicon.forged_names, *self.own}
        self.tool_names = fs.pick_tool_names(Code(code[160:192]), taken)
        tools = tuple(name for name in self.names[:-1] if c.take(3) == 1)
        # swarm testing: each operation is left out of this example one time in two
        enabled = tuple(op for op in self.operations if c.take(2) == 0)
        self.enabled = enabled or self.operations
        self.stats.examples += 1
        try:
            self.lock = Lockstep(self.target, Setup(edition, mode, tools, persona, self.lexicon),
                                 self.info)
        except Unsupported:
            reject()  # a set-up the target cannot express (a non-native mode): draw another
        except TckError as exc:
            self._fatal(exc)
            raise

    @rule(code=codes(OPERATION_BYTES * BURST))
    def step(self, code: bytes) -> None:
        """:data:`BURST` driver operations, each chosen and parametrised by its slice of
        ``code``."""
        for start in range(0, OPERATION_BYTES * BURST, OPERATION_BYTES):
            c = Code(code[start : start + OPERATION_BYTES])
            OPERATIONS[c.choose(self.enabled)](self, c)

    def teardown(self) -> None:
        if self.lock is not None:
            self.stats.merge_steps(self.lock.steps)
            self.lock.close()

    # --- helpers ------------------------------------------------------------------------

    def _apply(self, op: str, **args: Any) -> None:
        assert self.lock is not None
        self.stats.applied += 1
        try:
            apply(self.lock, Step(op=op, args=args))
        except Divergence as divergence:
            self.stats.saw(divergence, self.stats.steps)
            hook = type(self).found
            if hook is not None:
                hook(divergence)
            raise
        except Unsupported:
            # an optional operation the target cannot express (docs/driver-api.md
            # #unsupported-operations): the steps before it were compared; draw another
            reject()
        except TckError as exc:
            self._fatal(exc)
            raise

    def _fatal(self, error: TckError) -> None:
        hook = type(self).fatal
        if hook is not None:
            hook(error)

    def _agent(self, index: int) -> str:
        """Agent ``index`` modulo the live ones; indexes 0..3 of 8 all mean the first agent,
        so that most operations meet in one scope."""
        assert self.lock is not None
        labels = list(self.lock.model.agents)
        return labels[0] if index < 4 else labels[index % len(labels)]

    def _nowhere(self, shipped: Sequence[str]) -> str:
        """The lexicon's provider name no target ships (CA-05), made unlike any ``shipped``."""
        name = self.lexicon.provider
        while name in shipped:
            name += "-not-shipped"
        return name

    def _session(self, index: int) -> str:
        assert self.lock is not None
        labels = list(self.lock.model.sessions)
        return labels[index % len(labels)]

    # --- the operations -----------------------------------------------------------------

    def global_tool(self, c: Code) -> None:
        assert self.lock is not None
        if c.take(3) == 2:  # mostly a registered name, so that the removal happens
            self._apply("unregister_global", name=_name(c, self.lock.model.globals, self.names))
        else:
            self._apply("register_global", name=c.choose(self.names))

    def local_tool(self, c: Code) -> None:
        assert self.lock is not None
        agent = self._agent(c.take(8))
        if c.take(3) == 2:  # mostly one of the scope's own locals
            local = self.lock.model.agents[agent].scope.locals
            self._apply("unregister_local", agent=agent, name=_name(c, local, self.names))
        else:  # half the time the name of a global, which the local then shadows (TF-05)
            name = _name(c, self.lock.model.globals, self.names) if c.take(2) else c.choose(
                self.names)
            self._apply("register_local", agent=agent, name=name)

    def restrict(self, c: Code) -> None:
        assert self.lock is not None
        agent = self._agent(c.take(8))
        value = fs.pick_restriction(c, self.lock.model.globals, self.lexicon.extra_names)
        label = self.lock.model.new_label(f"{agent}.r")
        self._apply("restrict", agent=agent, value=value, label=label)

    def dispose(self, c: Code) -> None:
        assert self.lock is not None
        label = self._agent(c.take(8))
        scope = self.lock.model.agents[label].scope
        installed = [label for label in scope.restrictions if label in scope.issued]
        if installed and c.take(4):  # mostly the newest installed one
            handle = installed[-1]
        else:  # any issued (perhaps disposed already) or a forged one (TF-14)
            issued = [*scope.issued, f"{label}.forged"]
            handle = issued[c.take(16) % len(issued)]
        self._apply("dispose", agent=label, restriction=handle)

    def policies(self) -> tuple[str, ...]:
        """The preset names a spawn policy lists: the deployment's, and names that are none of
        them (the missing preset, a case variant of the first)."""
        words = self.lexicon
        return (*words.presets, words.captain, words.mini)

    def spawn_policy(self, c: Code) -> None:
        """A spawn policy installed on a scope (mostly), or one disposed (SP-01)."""
        assert self.lock is not None
        agent = self._agent(c.take(8))
        issued = sorted(self.lock.model.agents[agent].policies_issued)
        if issued and c.take(4) == 0:
            self._apply("dispose_policy", agent=agent, policy=c.choose(issued))
            return
        words = self.lexicon
        value = fs.pick_restriction(c, self.policies(),
                                    (words.missing, words.presets[0].swapcase()))
        self._apply("install_policy", agent=agent, value=value,
                    label=self.lock.model.new_label(f"{agent}.p"))

    def set_mode(self, c: Code) -> None:
        self._apply("set_mode", agent=self._agent(c.take(8)), mode=c.choose(_MODES))

    def observe(self, c: Code) -> None:
        """A read (the lockstep also reads views and presentation after every change)."""
        kind, agent = c.choose(_READS), self._agent(c.take(8))
        name = c.choose((*self.names, *self.lexicon.forged_names))
        if kind == "headers":
            self._apply("headers")
        elif kind == "global-view":
            self._apply("view", agent=None)
        elif kind in ("lookup", "execute"):
            self._apply(kind, agent=agent, name=name)
        else:
            self._apply(kind, agent=agent)

    def run_code(self, c: Code) -> None:
        """A run_code program of one to four SDK calls (TF-12): names the scope sees, globals
        it may not see, its locals, ``run_code`` itself, names never registered and case
        variants of visible ones."""
        assert self.lock is not None
        agent = self._agent(c.take(8))
        model = self.lock.model.agents[agent]
        visible = [e.name for e in self.lock.model.view(model)]
        pools: tuple[Sequence[str], ...] = (
            visible, self.lock.model.globals, model.scope.locals, (RUN_CODE,),
            (*self.lexicon.register_names, *self.lexicon.forged_names),
            [n.swapcase() for n in visible], self.names)
        names = []
        for _ in range(1 + c.take(4)):
            # never a subagent tool: a program calling one could start a child
            pool = [n for n in pools[c.take(len(pools))] if n not in self.tool_names]
            names.append(c.choose(pool or self.names))
        self._apply("run_code", agent=agent, names=names)

    def create_agent(self, c: Code) -> None:
        assert self.lock is not None
        header = fs.pick_header(c)
        # a runtime depth half the time, then mostly a small valid one, so that header and
        # runtime depths both count and either may be the larger (DE-02)
        runtime = fs.pick_header(c) if c.take(2) == 1 else None
        self._apply(
            "create_agent", header={"json": header.text},
            runtime=None if runtime is None else {"json": runtime.text},
            label=self.lock.model.new_label("a"),
        )

    def start(self, c: Code) -> None:
        assert self.lock is not None
        parent = self._agent(c.take(8))
        names = [p.name for p in self.info.providers]
        # one start in sixteen asks for a provider no target ships (CA-05)
        provider = self._nowhere(names) if c.take(16) == 15 else c.choose(names)
        controls: dict[str, Any] = {}
        max_depth = fs.pick_optional_depth(c, absent_in=2)
        if max_depth is not None:
            controls["maxDepth"] = {"json": max_depth.text}
        preset = c.choose((None, None, None, *self.lexicon.presets, self.lexicon.missing,
                           self.lexicon.captain, self.lexicon.mini))
        if preset is not None:
            controls["preset"] = preset
        # the newer controls (SP-01, MO-01), mostly where a provider advertises them; one start
        # in sixteen elsewhere, so that their refusal is judged too (CA-01)
        advertised = self.lock.advertised
        if c.take(4 if Capability.SPAWN_POLICY in advertised else 16) == 0:
            words = self.lexicon
            controls["spawnPolicy"] = fs.pick_restriction(
                c, self.policies(), (words.missing, words.presets[0].swapcase()))
        if c.take(3 if Capability.MODEL_SELECTION in advertised else 16) == 0:
            controls["model"] = c.choose((*self.lexicon.models, "", None))
        persona = fs.pick_persona(c, self.lexicon.request_personas())
        tool_filter = fs.pick_restriction(
            c, self.lock.model.globals, self.lexicon.extra_names) if c.take(3) == 1 else None
        output_schema = fs.pick_output_schema(c)
        # request persona/toolFilter are refused in the preset edition (EN-02): send them
        # there one time in four, so that most starts get further
        if self.lock.setup.edition is Edition.REQUEST_CONTROLS or c.take(4) == 1:
            if persona is not fs.OMIT:
                controls["persona"] = persona
            if tool_filter is not None:
                controls["toolFilter"] = tool_filter
        if output_schema is not fs.OMIT:
            controls["outputSchema"] = output_schema
        # one start in four: the child's model changes the registry at its first request
        # and asks for a tool call, so that its second request shows the change (FR-05)
        extra: dict[str, Any] = {}
        if c.take(4) == 0:
            if c.take(2) and self.lock.model.globals:
                extra["change"] = {"unregister": _name(c, self.lock.model.globals, self.names)}
            else:
                extra["change"] = {"register": c.choose(self.names)}
        self._apply("start", parent=parent, provider=provider, controls=controls,
                    label=self.lock.model.new_label("c"), **extra)

    def subagent_tool(self, c: Code) -> None:
        """The ``subagent`` tool's component (:mod:`.subagent`, :mod:`.tool_calls`): a load
        (its name, provider, cap and controls drawn), an unload, a provider removed or added
        again, the host depth, a call, or a descriptor rebound."""
        assert self.lock is not None
        providers = [p.name for p in self.info.providers]
        model = tools(self.lock)
        kind = c.take(11)  # 0-1 a load, 2 an unload, 3 a provider, 4 the host depth,
        loaded = list(model.loads)  # 5-6 a rebind, 7-10 a call
        # an unload mostly names a loaded tool; a load mostly a new or loaded name
        name = c.choose(loaded) if loaded and kind >= 2 and c.take(4) else c.choose(self.tool_names)
        provider = c.choose(providers)
        if kind <= 1:
            self._load(c, name, provider)
        elif kind == 2:
            self._apply("unload_tool", name=name)
        elif kind == 3:
            # mostly a provider back once one is gone (ST-02: re-added in any order)
            gone = [p for p in providers if p not in model.present]
            if gone and c.take(3):
                provider = c.choose(gone)
            op = "remove_provider" if provider in model.present else "add_provider"
            self._apply(op, provider=provider)
        elif kind == 4:
            self._apply("set_host_depth", depth=c.take(4))
        elif kind in (5, 6) and len(self.lock.model.sessions) > 1:
            # mostly a child's session: only a composed descriptor can be rebound (CA-01)
            composed = [label for label, s in self.lock.model.sessions.items() if s.composed]
            session = (c.choose(composed) if composed and c.take(4)
                       else self._session(c.take(8)))
            self._apply("rebind", session=session, provider=provider,
                        label=self.lock.model.new_label("r"))
        else:
            self._call(c, name)

    def _load(self, c: Code, name: str, provider: str) -> None:
        """A load: ``maxDepth`` unset, ``'provider-managed'`` or any JSON depth; in the
        request-controls edition one load in two with a persona, one in two with a toolFilter
        (docs/rules.md#EN-03; one in twelve each in the other edition, which may refuse them
        at load); one in four with agentOptions."""
        assert self.lock is not None
        choice = c.take(4)
        args: dict[str, Any] = {"name": name, "provider": provider, "max_depth": (
            None if choice == 0 else PROVIDER_MANAGED if choice == 1
            else {"json": fs.pick_header(c).text})}
        odds = 2 if self.lock.setup.edition is Edition.REQUEST_CONTROLS else 12
        if c.take(odds) == 0:  # null, or the empty persona (PE-03) twice as often as another
            args["persona"] = c.choose((None, "", "", *self.lexicon.request_personas()))
        if c.take(odds) == 0:
            args["tool_filter"] = fs.pick_restriction(c, self.lock.model.globals,
                                                      self.lexicon.extra_names)
        if c.take(4) == 0:
            args["agent_options"] = c.choose(fs.agent_options(self.lexicon.title.lower()))
        self._apply("load_tool", **args)
        # a load with controls is mostly called at once: what its controls compose is seen in
        # the child's first request (EN-03), which a later call meets only by chance
        if ("persona" in args or "tool_filter" in args) and c.take(3):
            self._call(c, name, chosen=True)

    def _call(self, c: Code, name: str, chosen: bool = False) -> None:
        """A call of a tool the caller sees three times in four; its child answers with a
        drawn stop reason, nothing, no answer at all, or a stall the caller's abort ends, and
        one call in four aborts the caller's turn while the child waits (ST-09)."""
        assert self.lock is not None
        agent = self._agent(c.take(8))
        # one call in three from an agent whose durable depth was rewritten under it, when one
        # is live: a depth that changed under the same cap (ST-07)
        moved = [a.label for a in self.lock.model.agents.values()
                 if self.lock.model.sessions[a.session].rewritten]
        if moved and c.take(3) == 0:
            agent = c.choose(moved)
        if chosen:  # ``name``, by an agent that sees it when one does
            model = self.lock.model
            seeing = [a.label for a in model.agents.values() if name in model.wire(a)]
            viewing = [a.label for a in model.agents.values()
                       if any(e.name == name for e in model.view(a))]
            if seeing:
                agent = c.choose(seeing)
            elif viewing:  # offered through run_code only (ptc): the caller's mode changes
                agent = c.choose(viewing)
                self._apply("set_mode", agent=agent, mode=c.choose(("native", "both")))
        caller = self.lock.model.agents[agent]
        offered = [n for n in tools(self.lock).loads if n in self.lock.model.wire(caller)]
        if chosen:
            pass
        elif offered and c.take(4):
            name = c.choose(offered)
        elif not offered and c.take(2):  # nothing to call yet: mostly a load instead
            self._load(c, name, c.choose([p.name for p in self.info.providers]))
            return
        stop = c.choose((*([StopReason.COMPLETED.value] * 4), *(r.value for r in StopReason)))
        reply = c.choose(("output", "output", "output", *REPLIES))
        args: dict[str, Any] = {"stop": stop}
        if reply != "output":
            args["reply"] = reply
        elif c.take(4) == 0:
            args["abort"] = True
        self._apply("call_tool", agent=agent, name=name, **args)

    def resume(self, c: Code) -> None:
        """Cold-resume a session, after writing its stored header depth one time in two
        (DE-06, DE-09); one time in four, write the stored depth of a live agent's session
        and resume nothing: its durable depth changes under the same cap (DE-02, ST-07)."""
        assert self.lock is not None
        session, label = self._session(c.take(8)), self.lock.model.new_label("r")
        choice = c.take(4)
        if choice == 0:
            self._apply("resume", session=session, label=label)
            return
        depth = {"json": fs.pick_header(c).text}
        if choice == 1:
            # the session of an agent drawn as a caller is (root mostly), mostly at a depth
            # one below, at or one above the host depth setting: a call from it is then
            # below or at the live cap (ST-06, ST-07); else any depth of the domain
            agent = self.lock.model.agents[self._agent(c.take(8))]
            host = tools(self.lock).host_depth if self.lock.subagent_tools else 1
            near = str(max(0, host + c.take(3) - 1))
            depth = {"json": fs.pick_header(c).text if c.take(4) == 0 else near}
            self._apply("rewrite", session=agent.session, depth=depth)
        else:
            self._apply("plant", session=session, depth=depth, label=label)


def _name(c: Code, present: list[str], names: Sequence[str]) -> str:
    """One of ``present`` that is one of ``names`` three times in four (when there are any),
    else any of ``names`` (never a subagent tool's: those come and go with their loads)."""
    present = [n for n in present if n in names]
    if present and c.take(4):
        return c.choose(present)
    return c.choose(names)


#: The driver operations a step chooses from (each reads its arguments from the step's code).
OPERATIONS: dict[str, Callable[[FuzzMachine, Code], None]] = {
    "global_tool": FuzzMachine.global_tool,
    "local_tool": FuzzMachine.local_tool,
    "restrict": FuzzMachine.restrict,
    "dispose": FuzzMachine.dispose,
    "set_mode": FuzzMachine.set_mode,
    "observe": FuzzMachine.observe,
    "run_code": FuzzMachine.run_code,
    "create_agent": FuzzMachine.create_agent,
    "start": FuzzMachine.start,
    "resume": FuzzMachine.resume,
    #: only for a target whose providers advertise spawnPolicy (see machine_for)
    "spawn_policy": FuzzMachine.spawn_policy,
    #: only for a target that ships the subagent tool (see machine_for)
    "subagent_tool": FuzzMachine.subagent_tool,
}


def state_machine_test(machine: type[FuzzMachine], options: settings) -> Any:
    """The Hypothesis test of ``machine`` (the one HypoFuzz collects from its ``TestCase``):
    its database key is :func:`database_key`'s, whoever runs it."""
    return get_state_machine_test(machine, settings=options)


def database_key(machine: type[FuzzMachine]) -> bytes:
    """The example database key of ``machine``'s test: the digest HypoFuzz's workers and the
    in-process campaign both save and replay under (before :mod:`.database`'s target prefix)."""
    test: Any = get_state_machine_test(machine, settings=settings(database=None))
    return function_digest(test.hypothesis.inner_test)


def machine_for(target: Target, info: TargetInfo | None = None,
                editions: Sequence[Edition] = ()) -> type[FuzzMachine]:
    """A machine class bound to ``target``, deploying in ``editions`` (default: every edition
    ``target.info()`` lists)."""
    info = info or target.info()
    editions = tuple(editions) or tuple(info.editions) or (Edition.PRESET_COMPOSITION,)

    class TargetMachine(FuzzMachine):
        pass

    TargetMachine.target = target
    TargetMachine.info = info
    TargetMachine.editions = editions
    TargetMachine.stats = Stats()
    TargetMachine.own = own_tools.of(target)
    ships_tool = Component.SUBAGENT_TOOL in info.components
    policies = any(Capability.SPAWN_POLICY in p.capabilities for p in info.providers)
    TargetMachine.operations = tuple(op for op in OPERATIONS
                                     if (ships_tool or op != "subagent_tool")
                                     and (policies or op != "spawn_policy"))
    return TargetMachine
