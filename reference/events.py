"""The ordered lifecycle log (FR-02, DE-04, CA-02).

Kinds: ``agent.published`` (with the snapshot of view and prompt taken at publication),
``agent.retired``, ``run.started``, ``run.stopped`` (``stopReason``), ``run.disposed``,
``provider.added``, ``provider.removed``. A rejected start emits nothing: the start pipeline
emits only after its unpublished setup succeeded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .listeners import Listeners

AGENT_PUBLISHED = "agent.published"
AGENT_RETIRED = "agent.retired"
RUN_STARTED = "run.started"
RUN_STOPPED = "run.stopped"
RUN_DISPOSED = "run.disposed"
PROVIDER_ADDED = "provider.added"
PROVIDER_REMOVED = "provider.removed"


@dataclass(frozen=True)
class LifecycleEvent:
    seq: int
    kind: str
    agent: str | None = None
    session: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


EventListener = Callable[[LifecycleEvent], None]


class EventLog:
    """Append-only, numbered from 1."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: list[LifecycleEvent] = []
        self._listeners: Listeners[[LifecycleEvent]] = Listeners()

    def emit(
        self,
        kind: str,
        agent: str | None = None,
        session: str | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> LifecycleEvent:
        with self._lock:
            event = LifecycleEvent(len(self._events) + 1, kind, agent, session, dict(data or {}))
            self._events.append(event)
        self._listeners.notify(event)
        return event

    def events(self) -> tuple[LifecycleEvent, ...]:
        with self._lock:
            return tuple(self._events)

    def add_listener(self, listener: EventListener) -> Callable[[], None]:
        return self._listeners.add(listener)
