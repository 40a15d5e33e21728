"""The listeners of a live table (the tool registry, the provider registry, the event log).

Each listener is told of every change, in the order the listeners were added, until the
function that adding it returned removes it. A change is told to the listeners there were when
it happened: one added or removed by a listener takes effect from the next change on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")


class Listeners(Generic[P]):
    """The listeners of one table, each called with what a change passes to :meth:`notify`."""

    def __init__(self) -> None:
        self._listeners: list[Callable[P, None]] = []

    def add(self, listener: Callable[P, None]) -> Callable[[], None]:
        """Call ``listener`` on every change; returns a function that removes it."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def notify(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for listener in list(self._listeners):
            listener(*args, **kwargs)
