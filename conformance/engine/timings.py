"""``certify --timings``: where a run's time goes (docs/certify.md#timings).

A :class:`Stopwatch` wraps the target the runner hands out, in one place: every ``Target`` and
``Deployment`` operation the kit calls passes through :class:`_TimedTarget` and
:class:`_TimedDeployment`, which read a clock around the call and hand back exactly what the
target answered or raised. Each timed target is bound to a part of the run (the questions
before the first check, or one check run); a deployment belongs to the part whose target
deployed it, whatever thread later calls it, so a check abandoned at its timeout never adds
its late calls to the next one.

Timing never changes an outcome: the wrappers add no call, drop no attribute (an operation the
target lacks is still missing: docs/driver-api.md#unsupported-operations) and change no answer.
The wrapper sits right on the target, under the kit's own layers (the fault guard, the own-tool
filter), so an operation's time is the target's. Its frames are left out of the tracebacks a
check records (:func:`format_exception`), so a timed run's certificate reads as an untimed one's.
"""

from __future__ import annotations

import inspect
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..core.certificate import CheckTiming, OperationTiming, PhaseTiming, Timings
from ..core.gateway import Gateway
from ..core.protocol import DeploymentConfig, TargetInfo
from ..core.target import Deployment, Target

#: The part of a run before the first check (``Timings.before_checks``).
BEFORE_CHECKS = -1
#: Digits kept of a number of seconds.
DIGITS = 6
#: What is timed: the operations of the Deployment protocol (a transport's extras, such as the
#: built-in target's record of provider faults, pass through untimed).
OPERATIONS = frozenset(name for name, _ in inspect.getmembers(Deployment, inspect.isfunction)
                       if not name.startswith("_"))


@dataclass
class _Tally:
    count: int = 0
    seconds: float = 0.0
    longest: float = 0.0

    def add(self, seconds: float) -> None:
        self.count += 1
        self.seconds += seconds
        if seconds > self.longest:
            self.longest = seconds


@dataclass
class _Part:
    deployments: int = 0
    operations: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class CheckSpan:
    """One check run as the runner saw it: its label parts, its wall time, whether it is a
    campaign (a supplementary check), and the part its operations were counted to (its index
    in the plan)."""

    check: str
    provider: str | None
    seconds: float
    campaign: bool
    part: int


@dataclass(frozen=True)
class PartTally:
    """One part's clock readings as a worker process hands them back (``certify --jobs``):
    what :meth:`Stopwatch.export` read and :meth:`Stopwatch.absorb` adds to the run's."""

    deployments: int
    operations: int
    seconds: float
    #: per operation name: calls, seconds over them, the longest
    calls: tuple[tuple[str, int, float, float], ...]


class Stopwatch:
    """The clock readings of one run (thread-safe: checks run on a worker thread, and a
    target's gateway may call back from another)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._operations: dict[str, _Tally] = {}
        self._parts: dict[int, _Part] = {}
        self._nesting = threading.local()
        self.before_checks_seconds = 0.0

    def bound(self, target: Target, part: int) -> Target:
        """``target`` timed, its operations counted to ``part`` (a check run's index, or
        :data:`BEFORE_CHECKS`)."""
        return cast(Target, _TimedTarget(self, target, part))

    def call(self, part: int, operation: str, function: Callable[..., Any],
             *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)``, timed as ``operation`` of ``part``."""
        depth = getattr(self._nesting, "depth", 0)
        self._nesting.depth = depth + 1
        began = self.clock()
        try:
            return function(*args, **kwargs)
        finally:
            seconds = max(0.0, self.clock() - began)
            self._nesting.depth = depth
            with self._lock:
                tally = self._operations.get(operation)
                if tally is None:
                    tally = self._operations[operation] = _Tally()
                tally.add(seconds)
                if depth == 0:  # a call made while another runs is inside its time already
                    counted = self._parts.get(part)
                    if counted is None:
                        counted = self._parts[part] = _Part()
                    counted.operations += 1
                    counted.seconds += seconds

    def deployed(self, part: int) -> None:
        with self._lock:
            self._parts.setdefault(part, _Part()).deployments += 1

    def export(self, part: int) -> PartTally:
        """What this stopwatch read for ``part`` (every operation it timed counts: a worker
        process times one check run per stopwatch)."""
        with self._lock:
            counted = self._parts.get(part, _Part())
            calls = tuple((name, t.count, t.seconds, t.longest)
                          for name, t in sorted(self._operations.items()))
        return PartTally(counted.deployments, counted.operations, counted.seconds, calls)

    def absorb(self, part: int, tally: PartTally) -> None:
        """Count ``tally``, read by another process's stopwatch, to ``part`` of this run."""
        with self._lock:
            counted = self._parts.setdefault(part, _Part())
            counted.deployments += tally.deployments
            counted.operations += tally.operations
            counted.seconds += tally.seconds
            for name, count, seconds, longest in tally.calls:
                own = self._operations.setdefault(name, _Tally())
                own.count += count
                own.seconds += seconds
                own.longest = max(own.longest, longest)

    def _part(self, part: int, seconds: float) -> PhaseTiming:
        with self._lock:
            counted = self._parts.get(part, _Part())
            return PhaseTiming(seconds=round(max(0.0, seconds), DIGITS),
                               deployments=counted.deployments, operations=counted.operations,
                               operation_seconds=round(counted.seconds, DIGITS))

    def timings(self, spans: Sequence[CheckSpan]) -> Timings:
        """The timings of the run whose check runs were ``spans``, in the order they ran."""
        checks: list[CheckTiming] = []
        campaigns: list[CheckTiming] = []
        for span in spans:
            part = self._part(span.part, span.seconds)
            entry = CheckTiming(check=span.check, provider=span.provider,
                                **part.model_dump())
            (campaigns if span.campaign else checks).append(entry)
        with self._lock:
            operations = [OperationTiming(operation=name, count=tally.count,
                                          seconds=round(tally.seconds, DIGITS),
                                          max_seconds=round(tally.longest, DIGITS))
                          for name, tally in sorted(self._operations.items())]
        return Timings(before_checks=self._part(BEFORE_CHECKS, self.before_checks_seconds),
                       checks=checks, campaigns=campaigns, operations=operations)


class _TimedTarget:
    """A :class:`Target` whose operations, and those of its deployments, are timed."""

    def __init__(self, watch: Stopwatch, inner: Target, part: int) -> None:
        self._watch = watch
        self._inner = inner
        self._part = part

    def info(self) -> TargetInfo:
        return cast(TargetInfo, self._watch.call(self._part, "info", self._inner.info))

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Deployment:
        self._watch.deployed(self._part)
        deployment = self._watch.call(self._part, "deploy", self._inner.deploy, config, gateway)
        return cast(Deployment, _TimedDeployment(self._watch, deployment, self._part))

    def close(self) -> None:
        self._inner.close()

    def __getattr__(self, name: str) -> Any:  # a transport's extras (url, faults, ...)
        return getattr(self._inner, name)


class _TimedDeployment:
    """A :class:`Deployment` whose operations are timed; every other attribute is its own."""

    def __init__(self, watch: Stopwatch, inner: Deployment, part: int) -> None:
        self._watch = watch
        self._inner = inner
        self._part = part
        #: one timed function per operation, made once: a check calls thousands of times
        self._timed: dict[str, Callable[..., Any]] = {}

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)  # every time: what the target has now
        if name not in OPERATIONS or not callable(value):
            return value
        timed = self._timed.get(name)
        if timed is None:
            timed = self._timed[name] = _timed(self._watch, self._part, self._inner, name)
        return timed

    def __repr__(self) -> str:
        return repr(self._inner)


def _timed(watch: Stopwatch, part: int, inner: Deployment, name: str) -> Callable[..., Any]:
    """Operation ``name`` of ``inner``, timed (looked up at each call, like an untimed call)."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        return watch.call(part, name, getattr(inner, name), *args, **kwargs)

    timed.__name__ = name
    timed.__doc__ = getattr(getattr(inner, name, None), "__doc__", None)
    return timed


def format_exception(exc: BaseException) -> str:
    """``traceback.format_exception(exc)`` without the stopwatch's own frames (in the chained
    and grouped exceptions too): what a check records reads the same with or without
    ``--timings``."""
    shown = traceback.TracebackException.from_exception(exc)
    pending = [shown]
    seen: set[int] = set()
    while pending:
        each = pending.pop()
        if id(each) in seen:
            continue
        seen.add(id(each))
        each.stack = traceback.StackSummary.from_list(
            [frame for frame in each.stack if frame.filename != _OWN_FILE])
        pending += [e for e in (each.__cause__, each.__context__) if e is not None]
        pending += list(getattr(each, "exceptions", None) or ())
    return "".join(shown.format())


#: Where the stopwatch's frames come from (this module, as a traceback names it).
_OWN_FILE = Stopwatch.call.__code__.co_filename
