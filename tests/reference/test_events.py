from __future__ import annotations

from subagent_tck.reference import EventLog, LifecycleEvent


def test_events_are_numbered_in_order_and_listeners_see_them() -> None:
    log = EventLog()
    seen: list[LifecycleEvent] = []
    remove = log.add_listener(seen.append)
    first = log.emit("run.started", "agent-1", "session-1")
    remove()
    remove()
    second = log.emit("run.stopped", data={"stopReason": "completed"})
    assert [(e.seq, e.kind) for e in log.events()] == [(1, "run.started"), (2, "run.stopped")]
    assert seen == [first] and second.data == {"stopReason": "completed"}
