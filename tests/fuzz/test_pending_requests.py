"""A model request whose reply the gateway is still computing counts as made: a scripted reply
that acts on the target (an abort) can let the target's operation return before the exchange is
recorded, and the lockstep must not read that request, recorded during a later refused step,
as a change that step made (it once turned the JavaScript implementation red at one seed)."""

from __future__ import annotations

import threading

from subagent_tck.conformance.core.gateway import text
from subagent_tck.conformance.core.protocol import Message, ModelReply, ModelRequest
from subagent_tck.conformance.core.target import Target
from subagent_tck.fuzz.lockstep import Lockstep
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.step import Divergence


def test_a_request_answered_after_a_refused_step_began_is_no_change_of_that_step(
    reference: Target,
) -> None:
    lock = Lockstep(reference, Setup())
    entered, release = threading.Event(), threading.Event()

    def slow(request: ModelRequest) -> ModelReply:
        entered.set()
        release.wait(5)
        return text("late")

    marker = lock.gateway.script("<<late reply>>", slow)
    request = ModelRequest(agent="elsewhere", system="", tools=[],
                           messages=[Message(role="user", content=f"{marker} go")])
    thread = threading.Thread(target=lock.gateway.complete, args=(request,))
    thread.start()
    try:
        assert entered.wait(5)
        before = lock.snapshot()  # the request is made; its reply is not recorded yet
        release.set()
        thread.join(5)
        assert len(lock.gateway.exchanges) == 1  # recorded now, between the two snapshots
        lock.unchanged(before, "nothing-changed", None)
    except Divergence as divergence:  # pragma: no cover - the failure this test guards
        raise AssertionError(divergence.finding.message) from None
    finally:
        release.set()
        thread.join(5)
        lock.close()


def test_a_request_made_during_a_refused_step_is_still_a_change(reference: Target) -> None:
    lock = Lockstep(reference, Setup())
    try:
        before = lock.snapshot()
        lock.gateway.complete(ModelRequest(agent="elsewhere", system="", tools=[], messages=[]))
        try:
            lock.unchanged(before, "nothing-changed", None)
        except Divergence as divergence:
            assert "model requests (1 more, from agent(s) elsewhere" in divergence.finding.message
        else:
            raise AssertionError("a new model request during a refused step went unseen")
    finally:
        lock.close()
