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

This module holds the rules Hypothesis runs (the set-up, the one step, the tear-down), the table
of operations and the machine bound to a target; each operation's draws are
:mod:`.machine_draws`, what the machine holds and how it applies a step :mod:`.machine_base`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import reject, settings
from hypothesis.internal.reflection import function_digest
from hypothesis.stateful import get_state_machine_test, initialize, rule

from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.conformance.engine import own_tools
from subagent_tck.spec import Capability, Component, Edition, PresentationMode, TckError

from . import strategies as fs
from .code import Code, codes
from .lexicon import pick_lexicon
from .lockstep import Lockstep
from .lockstep_core import Setup
from .machine_base import Stats
from .machine_draws import MODES, Draws
from .round_cache import recorded

#: Bytes of code one operation reads (at most; an exhausted code reads as zeros).
OPERATION_BYTES = 24
#: Operations per step of the state machine. Hypothesis pays its own cost (choosing the rule,
#: drawing its argument, bookkeeping) per step; four operations per step pay it once for four
#: (1,700 -> 2,200 operations per CPU second against the in-process reference, measured with
#: benchmarks/bench_fuzz.py; eight gained little more). Counterexamples are unaffected: the
#: campaign shrinks the decoded operations themselves (:mod:`.shrink`).
BURST = 4


class FuzzMachine(Draws):
    """Bound to a target by :func:`machine_for`; not usable on its own."""

    # --- set-up, the one rule, tear-down ------------------------------------------------

    @initialize(code=codes(192))
    def deploy(self, code: bytes) -> None:
        with recorded(type(self).recording, code):
            self._deploy(code)

    def _deploy(self, code: bytes) -> None:
        c = Code(code)
        edition = c.choose(self.editions)
        mode = PresentationMode(c.choose(MODES))
        # the words (bytes 64..159), names (32..63) and subagent tool names (160..191) have
        # codes of their own, so that a shrunk byte of one keeps the rest of the set-up
        self.lexicon = pick_lexicon(Code(code[64:160]))
        persona = c.choose(self.lexicon.deployment_personas())
        self.names = tuple(n for n in fs.pick_vocabulary(
            Code(code[32:64]), self.lexicon.register_names) if n not in self.own)
        taken = {*self.names, *self.lexicon.extra_names, *self.lexicon.forged_names, *self.own}
        self.tool_names = fs.pick_tool_names(Code(code[160:192]), taken)
        folding = self.info.toolNameFolding
        if folding is not None and not folding.apart([
                *self.names, *self.lexicon.extra_names, *self.lexicon.forged_names,
                *self.tool_names]):
            # two names the target declares it spells alike: TF-01's checks draw such pairs,
            # the campaign draws around them (docs/driver-api.md#dialect)
            reject()
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
        with recorded(type(self).recording, code):
            self._step(code)

    def _step(self, code: bytes) -> None:
        for start in range(0, OPERATION_BYTES * BURST, OPERATION_BYTES):
            c = Code(code[start : start + OPERATION_BYTES])
            OPERATIONS[c.choose(self.enabled)](self, c)

    def teardown(self) -> None:
        if self.lock is not None:
            self.stats.merge_steps(self.lock.steps)
            self.lock.close()


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
    return test_key(get_state_machine_test(machine, settings=settings(database=None)))


def test_key(test: Any) -> bytes:
    """The database key of a machine's test already made (:func:`database_key`)."""
    inner = test.hypothesis.inner_test
    key = (inner.__code__, getattr(inner, "_hypothesis_internal_add_digest", None))
    if key not in _DIGESTS:
        _DIGESTS[key] = function_digest(inner)
    return _DIGESTS[key]


#: Hypothesis's digest of a machine's inner test, by its code: every machine's inner test is
#: the same function of Hypothesis's (its source, signature and added digest are all the
#: digest reads), and reading it tokenizes that source each time.
_DIGESTS: dict[tuple[Any, Any], bytes] = {}


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
