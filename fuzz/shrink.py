"""Shrinking a divergence to a short, readable sequence of steps.

Hypothesis finds the first divergence; shrinking then works on the *decoded* steps (data, see
:mod:`.step`), replaying candidates in fresh deployments with the :class:`~.lockstep.Lockstep`.
A candidate is kept when the same kind of observation breaks (the rule is diagnosed again on
the shorter sequence). The passes, repeated until none helps or the time budget is spent:

1. delete chunks of steps (halves, quarters, ... single steps), as delta debugging does;
2. make a registered global one of the deployment's own tools (registered before every step),
   delete a step that created an agent and let later steps use its parent (or the root)
   instead, then simplify arguments: drop one element of a list, or one key of a dict (a
   start's ``controls``, a restriction's lists);
3. simplify the deployment: drop one initial global tool, use the native mode and the first
   deployment persona.

Working on steps rather than on Hypothesis's bytes is much faster here (a step's code has bytes
that the operation never reads, and every one of them costs Hypothesis a full replay), and the
result is a 1-minimal sequence: removing any single step loses the finding.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.spec import PresentationMode, TckError

from .lockstep import Lockstep
from .lockstep_core import Setup
from .operations import apply
from .step import Divergence, Finding, Step


def _same(found: Finding, wanted: Finding) -> bool:
    """The same kind of observation broke. The rule is left free on purpose: it is diagnosed
    again on the shorter sequence, where a step that only made another explanation look
    plausible (say, an unrelated dispose) is gone."""
    return found.observation == wanted.observation


class Shrinker:
    """Replays candidate sequences against ``target`` until ``deadline``."""

    def __init__(self, target: Target, info: TargetInfo, wanted: Finding, deadline: float) -> None:
        self.target = target
        self.info = info
        self.wanted = wanted
        self.deadline = deadline
        self.runs = 0

    def out_of_time(self) -> bool:
        return time.perf_counter() > self.deadline

    def shows(self, setup: Setup, steps: list[Step]) -> Divergence | None:
        """The divergence ``steps`` show in a fresh deployment, if it is the wanted one."""
        self.runs += 1
        lock: Lockstep | None = None
        try:
            lock = Lockstep(self.target, setup, self.info)
            for step in steps:
                apply(lock, step)
        except Divergence as divergence:
            return divergence if _same(divergence.finding, self.wanted) else None
        except (TckError, Unsupported, KeyError, TypeError, ValueError):
            return None  # a step naming an agent a deleted step created, or malformed args
        finally:
            if lock is not None:
                lock.close()
        return None


def shrink(
    target: Target, divergence: Divergence, *, seconds: float, info: TargetInfo | None = None
) -> tuple[Divergence, int]:
    """The shortest divergence found within ``seconds`` that shows the same finding, and the
    number of replays it took. ``divergence.setup`` must be the deployment it ran in."""
    best = divergence
    setup: Setup = divergence.setup or Setup()
    shrinker = Shrinker(target, info or target.info(), divergence.finding,
                        time.perf_counter() + seconds)
    progress = True
    while progress and not shrinker.out_of_time():
        progress = False
        for candidate_setup, candidate in _candidates(setup, best.steps):
            if shrinker.out_of_time():
                break
            found = shrinker.shows(candidate_setup, candidate)
            if found is not None and _size(candidate_setup, found.steps) < _size(
                    setup, best.steps):
                best, setup, progress = found, candidate_setup, True
                break
    return best, shrinker.runs


def _size(setup: Setup, steps: list[Step]) -> tuple[int, int, int, bool, bool]:
    native = setup.mode is PresentationMode.NATIVE
    return (len(steps), sum(len(repr(s.args)) for s in steps), len(setup.tools), not native,
            setup.persona != setup.lexicon.persona)


def _candidates(setup: Setup, steps: list[Step]) -> Iterator[tuple[Setup, list[Step]]]:
    """Simpler variants, the most promising (largest deletions) first."""
    size = len(steps) // 2
    while size >= 1:
        for start in range(0, len(steps) - size + 1, size):
            yield setup, steps[:start] + steps[start + size :]
        size //= 2
    for index, step in enumerate(steps):
        name = step.args.get("name")
        if step.op == "register_global" and isinstance(name, str) and name not in setup.tools:
            # the deployment's own tool instead: registered before every step
            yield replace(setup, tools=(*setup.tools, name)), [*steps[:index], *steps[index + 1:]]
    for index, step in enumerate(steps):
        label = step.args.get("label")
        if isinstance(label, str) and step.op in _CREATING:
            # delete a step that created an agent, and let later steps use another one
            stand_in = step.args.get("parent", "root")
            later = [_relabel(s, label, stand_in) for s in steps[index + 1 :]]
            yield setup, [*steps[:index], *later]
    for index, step in enumerate(steps):
        for args in _simpler_args(step.args):
            yield setup, [*steps[:index], Step(op=step.op, args=args), *steps[index + 1 :]]
    for name in setup.tools:
        yield replace(setup, tools=tuple(t for t in setup.tools if t != name)), steps
    if setup.mode is not PresentationMode.NATIVE:
        yield replace(setup, mode=PresentationMode.NATIVE), steps
    if setup.persona != setup.lexicon.persona:
        yield replace(setup, persona=setup.lexicon.persona), steps


#: Operations whose ``label`` argument names the agent they create.
_CREATING = frozenset({"create_agent", "start", "plant", "resume"})
_REFERENCES = ("agent", "parent", "session")


def _relabel(step: Step, old: str, new: str) -> Step:
    """``step`` with the agent ``old`` replaced by ``new`` (its restrictions' labels too)."""
    args = dict(step.args)
    for key, value in step.args.items():
        if key in _REFERENCES and value == old:
            args[key] = new
        elif key in ("label", "restriction") and isinstance(value, str) and value.startswith(
                f"{old}."):
            args[key] = f"{new}.{value[len(old) + 1:]}"
    return step if args == step.args else Step(op=step.op, args=args)


def _simpler_args(args: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Drop one key of a dict inside the arguments (a start's ``controls``, a restriction's
    lists), or one element of a list."""
    for path, inner in _containers(args, ()):
        keys: list[Any] = list(inner) if isinstance(inner, dict) else list(range(len(inner)))
        for key in keys:
            smaller = copy.deepcopy(args)
            holder: Any = smaller
            for step in path:
                holder = holder[step]
            del holder[key]
            yield smaller


def _containers(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every non-empty list, and every dict below the top level, with its path."""
    if isinstance(value, list):
        if value:
            yield path, value
        return
    if isinstance(value, dict):
        if path and value and set(value) != {"json"}:  # a depth's JSON text stays whole
            yield path, value
        for key, inner in value.items():
            yield from _containers(inner, (*path, key))
