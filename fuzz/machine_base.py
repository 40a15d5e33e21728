"""What the state machine holds of one deployment, and a step applied through it.

:class:`MachineBase` carries what :func:`.machine.machine_for` binds a machine to (the target,
its info and editions, the campaign's :class:`Stats`, the hooks of a HypoFuzz worker) and the
deployment an example runs in (its :class:`~.lockstep.Lockstep`, words and names); it applies
one :class:`~.step.Step` (:meth:`MachineBase._apply`): a divergence is counted and handed to the
hook before it propagates, an operation the target cannot express draws another example
(docs/driver-api.md#unsupported-operations), an error of the target goes to the fatal hook. The
draws of each operation are :mod:`.machine_draws`, the rules Hypothesis runs :mod:`.machine`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hypothesis import reject
from hypothesis.stateful import RuleBasedStateMachine

from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.spec import Edition, TckError

from .lexicon import CLASSIC, Lexicon
from .lockstep import Lockstep
from .operations import apply
from .round_cache import Recording
from .step import Divergence, Finding, Step
from .tool_model import TOOL_NAMES


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


class MachineBase(RuleBasedStateMachine):
    """The machine's binding, its deployment and a step applied (the machine itself:
    :class:`.machine.FuzzMachine`)."""

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
    #: the codes of the round under way, while the campaign records one (.round_cache)
    recording: ClassVar[Recording | None] = None

    def __init__(self) -> None:
        super().__init__()
        if self.recording is not None:
            self.recording.begin()
        self.lock: Lockstep | None = None
        self.enabled: tuple[str, ...] = self.operations
        #: this deployment's words (presets, variables, core tool names...): see lexicon
        self.lexicon: Lexicon = CLASSIC
        #: this deployment's registrable names (run_code last): see strategies.pick_vocabulary
        self.names: tuple[str, ...] = CLASSIC.register_names
        #: the names this deployment loads subagent tools under: strategies.pick_tool_names
        self.tool_names: tuple[str, ...] = TOOL_NAMES

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
