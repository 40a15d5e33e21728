"""A property of a check: ``body`` run on states a Hypothesis strategy draws, seeded by the run
(``CheckContext.for_all``, docs/certify.md#generated-cases).

The first failing state is shrunk, within a budget of body runs (:data:`SHRINK_RUNS`), and its
failures, with the shrunk state as ``example``, are the ones recorded; a state the target may
refuse to set up (:class:`Inexpressible`) is drawn around; an operation the target cannot
express (:class:`~..core.unsupported.Unsupported`) ends the property.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..core.outcome import Failure
from ..core.unsupported import Unsupported
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


def run_property(host: PropertyHost, strategy: Any, body: Callable[[Any], None],
                 max_examples: int) -> None:
    """Run ``body`` on up to ``max_examples`` states of ``strategy`` seeded by ``host.seed``;
    the failures of the first failing state, shrunk, join ``host.failures``."""
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
            host.close()
            host.failures = []
            refused = False
            host.drawn_state = (state,)
            try:
                body(state)
            except Abort:
                pass
            except Inexpressible:
                refused = True
            except Unsupported as exc:
                stopped.append(exc)
            finally:
                trial, host.failures = host.failures, kept
                host.drawn_state = ()
            if refused:
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
