"""Campaign rounds kept for the next campaign in this process (docs/certify.md#draw-cache).

The machine draws nothing but byte codes (:mod:`.machine`): one for the set-up, one per step,
with no precondition and no bundle, so which codes a round draws depends on its seed and size
alone, never on what the target answered, as long as nothing in the round raised (a divergence,
an operation the target cannot express, a set-up it refused). A process that runs campaigns at
one seed more than once (the zoo, a test session, the checks of one ``certify`` whose four
shards share nothing) drew every such round anew. A round that ran clean is kept as the codes
each example's set-up and steps were called with, in order; the next round of the same key
calls a fresh machine with them, as Hypothesis's stateful runner would, without drawing. At the
first call that raises, the campaign's counts are put back and Hypothesis runs the round from
the start, so a divergence is found and shrunk as without the cache.

``SUBAGENT_TCK_DRAW_CACHE`` (conformance/engine/draw_cache.py's setting) turns it off, or, as
``verify``, runs every round with Hypothesis and fails when a kept round differs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from hypothesis.errors import HypothesisDeprecationWarning

from subagent_tck.conformance.engine import draw_cache

#: The machine class a campaign runs (:class:`.machine.FuzzMachine` bound to a target; named
#: loosely here: the machine imports this module for :func:`recorded`).
Machine = Any

#: Rounds kept at most (the oldest goes first).
MAX_KEPT = 512

Key = tuple[Any, ...]
Round = tuple[tuple[bytes, ...], ...]


class Recording:
    """The codes a round's examples were called with: per example, the set-up's code then each
    step's. ``spoiled`` once any call raised (the round is then not kept)."""

    def __init__(self) -> None:
        self.examples: list[list[bytes]] = []
        self.spoiled = False

    def begin(self) -> None:
        self.examples.append([])

    @contextlib.contextmanager
    def call(self, code: bytes) -> Iterator[None]:
        self.examples[-1].append(code)
        try:
            yield
        except BaseException:
            self.spoiled = True
            raise

    def kept(self) -> Round:
        return tuple(tuple(example) for example in self.examples)


@contextlib.contextmanager
def recorded(recording: Recording | None, code: bytes) -> Iterator[None]:
    """Around a set-up or a step: the call joins ``recording`` (when one is on)."""
    if recording is None:
        yield
        return
    with recording.call(code):
        yield


#: The process's kept rounds.
CACHE: draw_cache.Kept[Key, Round] = draw_cache.Kept(MAX_KEPT)


def round_key(machine: Machine, round_seed: int, examples: int, steps: int,
              phases: Sequence[Any], database: Any) -> Key | None:
    """The key of a round, or None for a round that is never kept: a database (its examples
    replay first), a HypoFuzz worker's hooks, a machine whose draws could follow its state
    (a precondition, a bundle, an invariant), or the cache turned off."""
    if database is not None or machine.found is not None or machine.fatal is not None:
        return None
    if draw_cache.mode() == "off":
        return None
    state = machine.setup_state()
    rules = [*state.initializers, *state.rules]
    if state.invariants or any(r.preconditions or r.bundles or r.targets for r in rules):
        return None
    shape = tuple((r.function.__qualname__, repr(sorted(r.arguments.items()))) for r in rules)
    return (shape, round_seed, examples, steps, tuple(str(p) for p in phases))


def _counts(machine: Machine) -> Any:
    stats = machine.stats
    saved = dataclasses.replace(stats, operations=Counter(stats.operations),
                                raised=list(stats.raised))

    def restore() -> None:
        for f in dataclasses.fields(saved):
            setattr(stats, f.name, getattr(saved, f.name))
    return restore


def replayed(machine: Machine, kept: Round) -> bool:
    """Call fresh machines with a kept round's codes, in order; False (the campaign's counts
    put back) at the first call that raises."""
    restore = _counts(machine)
    with warnings.catch_warnings():
        # a call the target refuses rejects the example (hypothesis.reject), which outside a
        # test Hypothesis warns of before it raises: here it only ends the replay
        warnings.simplefilter("ignore", HypothesisDeprecationWarning)
        return _replayed(machine, kept, restore)


def _replayed(machine: Machine, kept: Round, restore: Any) -> bool:
    for codes in kept:
        instance = machine()
        try:
            try:
                if codes:
                    instance.deploy(codes[0])
                for code in codes[1:]:
                    instance.step(code)
            finally:
                instance.teardown()
        except Exception:
            restore()
            return False
    return True


def keep(key: Key, recording: Recording) -> None:
    """Keep a round that ran clean (verify mode: compare it first with the one kept)."""
    if recording.spoiled:
        return
    kept = recording.kept()
    if draw_cache.mode() == "verify":
        before = CACHE.peek(key)
        if before is not None and before != kept:
            raise draw_cache.DrawCacheMismatch(
                f"the round cache kept another round than Hypothesis ran (seed {key[1]}, "
                f"{key[2]} examples): kept {len(before)} examples, ran {len(kept)} "
                f"(docs/certify.md#draw-cache); {draw_cache.ENV}=off runs without it")
    CACHE.put(key, kept)
