"""A step's reads sent with its change, in one round trip (docs/driver-api.md#batch).

After every change the lockstep reads what the oracle predicts (views, wire schemas, SDK
bindings, a snapshot after a refusal); over HTTP each read was a round trip of its own, five and
a half per step. :class:`Ahead` wraps a deployment: before a change the lockstep says which
reads will come before and after it (:meth:`Ahead.plan`), and the change goes out as one batch,
``[reads before, the change, reads after]``, to a target that serves the batch route. The
answers of the reads are kept and handed out when the lockstep asks for them; a read that was not
planned, or one asked after another change, goes out alone, so a wrong plan costs a round trip,
never a wrong observation. Without the batch route (an in-process target, an adapter that does
not serve it) the planned reads before the change are made first, one by one, and the rest
when asked, exactly as without this class.

Reads are the operations that only observe (:data:`~subagent_tck.conformance.transports.wire
.OBSERVERS`); every other call is a change and clears what was kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from subagent_tck.conformance.core.target import Deployment
from subagent_tck.conformance.transports.wire import OBSERVERS, OPERATIONS, dumps
from subagent_tck.spec import TckError

#: A planned read: the Deployment method's name and its keyword arguments.
Read = tuple[str, dict[str, Any]]
#: What a call answered: its result, or the refusal it raised.
Outcome = tuple[Any, TckError | None]
Batch = Callable[[Sequence[Read]], list[Outcome] | None]


def _key(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any]:
    """The same key for a call however its arguments were passed (positional, by keyword,
    defaults left out or given): its argument values in order (reads take ids and names), or
    their JSON text where one is not hashable."""
    values = list(args)
    for argument in OPERATIONS[name].arguments[len(args):]:
        values.append(kwargs.get(argument.name,
                                 None if argument.required else argument.default))
    key = name, tuple(values)
    try:
        hash(key)
    except TypeError:
        return name, dumps(OPERATIONS[name].bind(args, kwargs))
    return key


def _give(outcome: Outcome) -> Any:
    result, error = outcome
    if error is not None:
        raise error
    return result


class Ahead:
    """``deployment`` with planned reads carried by the next change (see the module)."""

    def __init__(self, deployment: Deployment) -> None:
        self.inner = deployment
        self._batch: Batch | None = getattr(deployment, "batch", None)
        self._before: list[Read] = []
        self._after: list[Read] = []
        #: answers of the reads made before the last change, handed out by :meth:`early`
        self._early: dict[tuple[str, Any], Outcome] = {}
        #: answers of the reads made after the last change
        self._kept: dict[tuple[str, Any], Outcome] = {}
        #: round trips saved (a benchmark's figure)
        self.carried = 0
        for name in OPERATIONS:
            if callable(getattr(deployment, name, None)):
                setattr(self, name, self._method(name))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def close(self) -> None:
        self.inner.close()

    @property
    def batches(self) -> bool:
        """Whether planned reads may ride with a change (the target serves batches, or has not
        said it does not yet)."""
        target = getattr(self.inner, "target", None)
        return self._batch is not None and getattr(target, "batches", None) is not False

    def plan(self, before: Sequence[Read] = (), after: Sequence[Read] = ()) -> None:
        """The reads the next change is preceded and followed by."""
        self._before, self._after = list(before), list(after)

    def early(self, name: str, **kwargs: Any) -> Any:
        """The answer of a read planned before the last change (made now when no change came:
        then nothing changed since, and now is as good as before)."""
        outcome = self._early.pop(_key(name, (), kwargs), None)
        if outcome is None:
            return getattr(self, name)(**kwargs)
        return _give(outcome)

    def _method(self, name: str) -> Callable[..., Any]:
        inner = getattr(self.inner, name)
        if name in OBSERVERS:
            def read(*args: Any, **kwargs: Any) -> Any:
                if self._kept:
                    outcome = self._kept.get(_key(name, args, kwargs))
                    if outcome is not None:
                        return _give(outcome)
                return inner(*args, **kwargs)

            return read

        def change(*args: Any, **kwargs: Any) -> Any:
            before, after = self._before, self._after
            self._before, self._after, self._kept, self._early = [], [], {}, {}
            if not before and not after:
                return inner(*args, **kwargs)
            named = {**dict(zip((a.name for a in OPERATIONS[name].arguments), args,
                                strict=False)), **kwargs}
            outcomes = (self._batch([*before, (name, named), *after])
                        if self._batch is not None and self.batches else None)
            if outcomes is None:  # no batch route: the reads before, then the change alone
                for read_name, read_args in before:
                    self._early[_key(read_name, (), read_args)] = _call(
                        getattr(self.inner, read_name), read_args)
                return inner(*args, **kwargs)
            self.carried += len(before) + len(after)
            for (read_name, read_args), outcome in zip(before, outcomes, strict=False):
                self._early[_key(read_name, (), read_args)] = outcome
            for (read_name, read_args), outcome in zip(after, outcomes[len(before) + 1:],
                                                       strict=True):
                self._kept[_key(read_name, (), read_args)] = outcome
            return _give(outcomes[len(before)])

        return change


def _call(method: Callable[..., Any], kwargs: dict[str, Any]) -> Outcome:
    try:
        return method(**kwargs), None
    except TckError as exc:
        return None, exc


__all__ = ["Ahead", "Outcome", "Read"]
