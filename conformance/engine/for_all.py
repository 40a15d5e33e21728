"""A property of a check: ``body`` run on states a Hypothesis strategy draws, seeded by the run
(``CheckContext.for_all``, docs/certify.md#generated-cases).

The first failing state is shrunk, within a budget of body runs (:data:`SHRINK_RUNS`), and its
failures, with the shrunk state as ``example``, are the ones recorded; a state the target may
refuse to set up (:class:`Inexpressible`) is drawn around; an operation the target cannot
express (:class:`~..core.unsupported.Unsupported`) ends the property. A property that passed
whole before in this process, at the same seed and budget, runs its kept states again without
drawing them (:mod:`.draw_cache`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..core.outcome import Failure
from ..core.unsupported import Unsupported
from . import draw_cache
from .stable_draws import stable_draws

#: Body runs a property may spend shrinking its first failure.
SHRINK_RUNS = 16


class Abort(Exception):
    """Ends a check early after a failure that makes its remaining steps meaningless."""


class Inexpressible(Exception):
    """The target refused to set up a drawn deployment it may refuse (a variable name outside
    the portable set, ``check.PORTABLE_VARIABLE``): the case says nothing about the rules, and
    a property draws another instead."""


class PropertyHost(Protocol):
    """What a property needs of a check's context."""

    seed: int
    failures: list[Failure]
    #: the state of the case now running, while ``body`` runs (docs/baseline.md)
    drawn_state: tuple[Any, ...]

    def close(self) -> None: ...


#: Fields of a check's context that a replay from the draw cache leaves alone: the run's own
#: ``failures`` are run_property's, the others are not state a case changes.
_NOT_RESTORED = frozenset({"target", "check", "failures", "_open"})


def _checkpoint(host: PropertyHost) -> Callable[[], None] | None:
    """A function that puts ``host``'s fields back as they are now (containers copied), or
    None for a host that is not a dataclass (no replay then)."""
    if not dataclasses.is_dataclass(host):
        return None
    saved = {f.name: getattr(host, f.name) for f in dataclasses.fields(host)
             if f.name not in _NOT_RESTORED}
    copies = {name: copy.copy(value) for name, value in saved.items()
              if isinstance(value, (list, dict, set))}

    def restore() -> None:
        for name, value in saved.items():
            setattr(host, name, copy.copy(copies[name]) if name in copies else value)
    return restore


def _replayed(host: PropertyHost, states: Sequence[Any], body: Callable[[Any], None]) -> bool:
    """Run ``body`` on kept states in order; False at the first that does not pass cleanly
    (a failure, a refusal, an operation the target cannot express, a crash): Hypothesis then
    draws the property anew, as if nothing had been kept."""
    kept = host.failures
    try:
        for state in states:
            host.close()
            host.failures = []
            host.drawn_state = (state,)
            try:
                body(state)
            except Abort:
                pass  # a failure ended the case early: ``trial`` says
            except Exception:  # refused, unsupported, or a crash: Hypothesis's to report
                return False
            finally:
                trial, host.failures = host.failures, kept
                host.drawn_state = ()
            if trial:
                return False
        return True
    finally:
        host.failures = kept
        host.close()


def run_property(host: PropertyHost, strategy: Any, body: Callable[[Any], None],
                 max_examples: int) -> None:
    """Run ``body`` on up to ``max_examples`` states of ``strategy`` seeded by ``host.seed``;
    the failures of the first failing state, shrunk, join ``host.failures``."""
    mode = draw_cache.mode()
    key = None if mode == "off" else draw_cache.CACHE.key(strategy, host.seed, max_examples)
    if key is not None and mode == "on":
        states = draw_cache.CACHE.states(key)
        restore = None if states is None else _checkpoint(host)
        if states is not None and restore is not None:
            if _replayed(host, states, body):
                return
            restore()  # as if the replay had not run: Hypothesis draws from the start
    _drawn(host, strategy, body, max_examples, key)


def _drawn(host: PropertyHost, strategy: Any, body: Callable[[Any], None], max_examples: int,
           key: draw_cache.DrawKey | None) -> None:
    """Hypothesis's run of the property; with ``key``, its states are kept when all pass."""
    from hypothesis import HealthCheck, Phase, given, reject, settings
    from hypothesis import seed as seeded
    from hypothesis.errors import Unsatisfiable

    kept = host.failures
    found: list[Failure] = []
    # Shrinking runs the body on ever smaller states; past SHRINK_RUNS runs after the first
    # failure the body runs no more (the smallest failure so far is kept, other states
    # pass), and a state that failed before fails again without running (Hypothesis replays
    # its final one).
    failing: dict[str, list[Failure]] = {}
    shrink_runs = [0]

    class _Found(Exception):
        pass

    class _Spent(BaseException):
        pass

    # a case whose operation the target cannot express ends the property (not a case to
    # draw around: every case of the rule's scenario needs that operation)
    stopped: list[Unsupported] = []
    # the states run, in order (for the draw cache); None once one cannot be kept
    recording: list[list[Any] | None] = [[] if key is not None else None]
    rejected = [False]

    class _Stopped(BaseException):
        pass

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        # no explain phase: once a state fails, Hypothesis would trace every later run
        # line by line (sys.settrace before 3.12), which made checks over a slow target
        # many times slower; the failure is reported from the kit's own record
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    )
    @seeded(host.seed)
    @given(strategy)
    def prop(state: Any) -> None:
        key = repr(state)
        trial = failing.get(key)
        spent = False
        if trial is None and failing:
            shrink_runs[0] += 1
            spent = shrink_runs[0] > SHRINK_RUNS
        if trial is None and not spent:
            if recording[0] is not None:
                try:
                    recording[0].append(draw_cache.snapshot(state))
                except draw_cache.Uncacheable:
                    recording[0] = None
            host.close()
            host.failures = []
            refused = False
            host.drawn_state = (state,)
            taking = getattr(host, "_judged_so_far", None)
            undo = taking() if taking is not None else None
            try:
                body(state)
            except Abort:
                pass
            except Inexpressible:
                refused = True
            except Unsupported as exc:
                if undo is not None:  # this case's steps before it are no verdict
                    undo()
                exc.settled = True  # the cases before it were whole: they stand
                stopped.append(exc)
            finally:
                trial, host.failures = host.failures, kept
                host.drawn_state = ()
            if refused:
                rejected[0] = True
                reject()  # a case the target may refuse to set up: draw another
            trial = [f if f.example else f.model_copy(update={"example": repr(state)})
                     for f in trial]
            if stopped:
                if not found:  # what this case found before the refusal is kept
                    found[:] = trial
                raise _Stopped()
            if trial:
                failing[key] = trial
        if trial:
            found[:] = trial
        if spent:
            # The budget is spent: end the search here (a BaseException passes through
            # Hypothesis's engine untouched; counting the state as failing would let the
            # shrinker go on through a large state choice by choice, for minutes). The
            # smallest real failure so far (``found``) is the one recorded.
            raise _Spent()
        if trial:
            # One place: Hypothesis tells failures apart by where they rise.
            raise _Found()

    # No example database (``database=None``), so no key for one: without this Hypothesis
    # reads and tokenizes ``prop``'s source for a key at every run of every property (a
    # few percent of a whole certification). An attribute Hypothesis reads if present.
    prop._hypothesis_internal_database_key = None
    try:
        with stable_draws():
            prop()
        if key is not None and recording[0] is not None and not rejected[0]:
            _keep(key, recording[0])
    except (_Found, _Spent):
        kept.extend(found)
    except _Stopped:
        kept.extend(found)
        raise stopped[0] from None
    except Unsatisfiable:
        pass  # every drawn case was one the target may refuse; the explicit ones ran
    finally:
        host.failures = kept
        host.close()


def _keep(key: draw_cache.DrawKey, states: list[Any]) -> None:
    """Keep the states of a property that passed whole (verify mode: compare them first with
    the ones kept before under the same key)."""
    if draw_cache.mode() == "verify":
        before = draw_cache.CACHE.peek(key)
        if before is not None:
            draw_cache.verify(key, before, states)
    draw_cache.CACHE.put(key, tuple(states))
