"""The model gateway: a scripted, recording model that every agent of a target talks to.

Scripts are keyed by a *marker*: a string the kit puts in the prompt of the agent it wants to
script. The first request of an agent whose user messages contain the marker binds that agent
to the script; each of its requests then takes the next reply. Unscripted agents, and scripts
that ran out, get the default reply (text ``done``, stop reason ``completed``). Every exchange
is recorded with the agent it came from, so checks read what a child's first request carried.

A reply may be a callable ``request -> ModelReply``: a hook that runs while the target waits
for its model (for example to register a global tool between two requests, FR-05).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from subagent_tck.spec import StopReason

from .protocol import ModelReply, ModelRequest, ToolCall

Reply = ModelReply | Callable[[ModelRequest], ModelReply]

DEFAULT_REPLY = ModelReply(text="done")


class ModelFailure(Exception):
    """Raised by a scripted step for a model request that fails for good: over HTTP the
    gateway answers ``status`` (a 4xx, which no client retries, where a crash's 500 may be
    retried for as long as a runtime likes) with the message; in-process the model call raises
    it, as any step that raises."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Exchange(BaseModel):
    request: ModelRequest
    reply: ModelReply
    marker: str | None = None
    #: why the model gave no answer (a scripted reply that raised); ``reply`` is then an
    #: ``error`` stop: the request was made all the same
    failed: str | None = None
    #: the request as the target sent it, when the target's own tools were left out of
    #: ``request`` (read only by SP-02, for a provider's own delegation tool)
    sent: ModelRequest | None = None


class Unattributed(BaseModel):
    """A request the gateway refused to attribute: its agent id was never reported by the
    target (docs/driver-api.md#security-and-processes). It binds no script and is no agent's
    request; a failure's transcript shows it."""

    agent: str
    reason: str
    request: ModelRequest


def text(value: str) -> ModelReply:
    return ModelReply(text=value)


def call(name: str, arguments: dict[str, Any] | None = None, call_id: str = "call-1") -> ModelReply:
    """A reply that makes the agent call a tool (possibly a forged one)."""
    return ModelReply(toolCalls=[ToolCall(id=call_id, name=name, arguments=arguments or {})])


def _user_text(request: ModelRequest) -> str:
    parts = []
    for message in request.messages:
        if message.role == "user":
            content = message.content
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


class Gateway:
    """Scripted and recording; safe to call from several threads (the HTTP transport does)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scripts: dict[str, deque[Reply]] = {}
        self._optional: set[str] = set()  # scripts that may stay unconsumed (see script())
        self._bound: dict[str, str] = {}  # agent -> marker
        self.exchanges: list[Exchange] = []
        # requests whose reply is still being computed (a scripted callback may act on the
        # target first: the request was made, and a reader must see it, whatever finishes
        # first), each beside the request as sent (see Exchange.sent)
        self._pending: list[tuple[ModelRequest, ModelRequest | None]] = []
        self.unattributed: list[Unattributed] = []
        #: what the target posted that the gateway refused as off its wire shape (HTTP 400)
        self.off_shape: list[str] = []
        #: Over HTTP, why the server that serves this gateway turned connections away since it
        #: was mounted (over its limit of connections open at once: HTTP 503, before any
        #: request is read, so no mount can be told): None in-process (set by the server).
        self.turned_away: Callable[[], str | None] | None = None
        #: What scripted steps raised that is no ``Exception``: a fault of the target met inside
        #: a step (a step that changes the deployment mid-run, engine/faults.py). The request
        #: is answered 500 and the check that scripted the step ends as the target's error
        #: (engine/check.py ``run_check``), never judging the run the fault cut short.
        self.faults: list[BaseException] = []
        #: tools the target brings itself, left out of every request recorded here
        #: (docs/certify.md#tools-the-target-brings)
        self.hidden: frozenset[str] = frozenset()

    def hide_tools(self, names: Iterable[str]) -> None:
        """Leave ``names`` out of the tools of every request from now on (the target's own
        global tools, which the checks do not judge)."""
        with self._lock:
            self.hidden = self.hidden | frozenset(names)

    def _judged(self, request: ModelRequest) -> ModelRequest:
        if not self.hidden or not any(t.name in self.hidden for t in request.tools):
            return request
        return request.model_copy(
            update={"tools": [t for t in request.tools if t.name not in self.hidden]})

    def script(self, marker: str, *replies: Reply, required: bool = True) -> str:
        """Script the agent whose prompt contains ``marker``; returns the marker.

        A required script the target never consumes voids the check (the runner reports an
        error: the scenario did not happen). Pass ``required=False`` for an agent that must
        *not* run (a child refused at the cap), scripted only to catch it if it does.
        """
        with self._lock:
            self._scripts[marker] = deque(replies)
            if required:
                self._optional.discard(marker)
            else:
                self._optional.add(marker)
        return marker

    def excuse(self, waiting: frozenset[str] = frozenset()) -> None:
        """Make every script optional but ``waiting`` (those already waiting for the target,
        :meth:`unconsumed`, before the part began): the part of a check that scripted them
        stopped at an operation the target cannot express, so it never asked for them."""
        with self._lock:
            self._optional.update(m for m in self._scripts if m not in waiting)

    def complete(self, request: ModelRequest) -> ModelReply:
        judged = self._judged(request)
        made = (judged, None if judged is request else request)
        request = judged
        with self._lock:
            marker = self._bound.get(request.agent)
            if marker is None:
                user = _user_text(request)
                for candidate in self._scripts:
                    if candidate in user and candidate not in self._bound.values():
                        marker = self._bound[request.agent] = candidate
                        break
            queue = self._scripts.get(marker) if marker is not None else None
            step: Reply = queue.popleft() if queue else DEFAULT_REPLY
            self._pending.append(made)
        try:
            reply = step(request) if callable(step) else step
        except BaseException as exc:  # no answer: the request was made, and stays on the record
            with self._lock:
                self._pending.remove(made)
                self.exchanges.append(Exchange(
                    request=request, reply=ModelReply(stopReason=StopReason.ERROR),
                    marker=marker, failed=f"{type(exc).__name__}: {exc}", sent=made[1]))
                if not isinstance(exc, Exception):
                    self.faults.append(exc)
            if isinstance(exc, Exception):
                raise
            # a server thread answers an Exception (500); anything else would end the thread
            # with a traceback on the user's terminal and the fault unseen by the check
            raise RuntimeError(f"a scripted step met a fault of the target: {exc}") from exc
        with self._lock:
            self._pending.remove(made)
            self.exchanges.append(Exchange(request=request, reply=reply, marker=marker,
                                           sent=made[1]))
        return reply

    def refuse(self, request: ModelRequest, reason: str) -> None:
        """Record a request refused as unattributed (see :class:`Unattributed`)."""
        request = self._judged(request)
        with self._lock:
            self.unattributed.append(Unattributed(agent=request.agent, reason=reason,
                                                  request=request))

    def refuse_shape(self, reason: str) -> None:
        """Record a request refused as off the wire shape (HTTP 400: the target's model client
        sent what no model endpoint accepts); a failure's transcript shows it."""
        with self._lock:
            self.off_shape.append(reason)

    # --- reading the record ------------------------------------------------------------

    def requests(self, agent: str | None = None, *, as_sent: bool = False
                 ) -> list[ModelRequest]:
        """The requests made (by ``agent``), in order; ``as_sent``: with the target's own tools
        the record leaves out (docs/certify.md#tools-the-target-brings), which only SP-02
        reads, for the delegation tool a provider names as its own (docs/rules.md#SP-02)."""
        with self._lock:
            made = [(e.request, e.sent) for e in self.exchanges] + self._pending
            return [(sent or request) if as_sent else request for request, sent in made
                    if agent is None or request.agent == agent]

    def agents_for(self, marker: str) -> list[str]:
        """The agents bound to ``marker`` (normally one)."""
        with self._lock:
            return [a for a, m in self._bound.items() if m == marker]

    def requests_for(self, marker: str) -> list[ModelRequest]:
        with self._lock:
            return [e.request for e in self.exchanges if e.marker == marker]

    def unconsumed(self) -> dict[str, int]:
        """Scripts with replies left: a target that never asked for them is suspicious."""
        with self._lock:
            return {m: len(q) for m, q in self._scripts.items() if q and m not in self._optional}

    def transcript(self, limit: int = 20) -> list[dict[str, Any]]:
        """The last ``limit`` exchanges as JSON, for a failure's evidence, then the last
        requests refused as unattributed (``{"unattributed": {agent, reason, request}}``: a
        check that found no request of an agent may have had this one refused) and as off the
        wire shape (``{"off_shape": reason}``: a run that ended in an error may have sent it)."""
        with self._lock:
            tail = self.exchanges[-limit:]
            refused = self.unattributed[-5:]
            malformed = self.off_shape[-5:]
        return ([e.model_dump(mode="json", exclude_defaults=True) for e in tail]
                + [{"unattributed": u.model_dump(mode="json", exclude_defaults=True)}
                   for u in refused]
                + [{"off_shape": reason} for reason in malformed])
