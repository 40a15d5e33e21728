"""The scripted model of one promise (docs/promises.md): the gateway that binds each agent's
script to its role, not to a marker, and the child's script.

The agent whose user text carries the promise's marker is the parent; each agent that asks
after it takes the next role (the agents ``trigger.via`` starts, then the child); a later one
(a grandchild) gets the default reply and is recorded as ``other``. The child, inside its turn,
calls every deployment tool outside its promise with valid arguments and then the trigger tool
again (the forged calls). The calls carry fixed call ids, so that the judge
(:mod:`.promise_judge`) finds their results.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from ..core.gateway import DEFAULT_REPLY, Exchange, Gateway, Reply, _user_text, call, text
from ..core.promises_file import Promise, PromisesFile
from ..core.protocol import ModelReply, ModelRequest

PARENT, CHILD, OTHER = "parent", "child", "other"
TRIGGER_CALL = "promise-trigger"
DELEGATE_CALL = "forged-delegation"


class PromiseGateway(Gateway):
    """The gateway for one promise: roles, not markers, bind scripts.

    The agent whose user text carries the parent's marker is the parent; each other agent that
    asks takes the next role of ``chain`` (the agents ``trigger.via`` starts, then the child);
    any later one (a grandchild) gets the default reply and is recorded as ``other``.
    ``trigger_returned`` is set when the agent that calls the trigger sends its model the
    trigger call's result (a background child is held until then).
    """

    def __init__(self, marker: str, parent: list[Reply], child: list[Reply],
                 via: list[list[Reply]] | None = None) -> None:
        super().__init__()
        self.marker = marker
        self.order = [PARENT, *(via_role(k) for k in range(1, len(via or ()) + 1)), CHILD]
        self._queues: dict[str, deque[Reply]] = {PARENT: deque(parent), CHILD: deque(child)}
        for k, script in enumerate(via or (), start=1):
            self._queues[via_role(k)] = deque(script)
        self.caller = self.order[-2]
        self.roles: dict[str, str] = {}
        self.trigger_returned = threading.Event()
        #: a held child whose caller did not get the trigger's result meanwhile
        self.foreground = False

    def complete(self, request: ModelRequest) -> ModelReply:
        with self._lock:
            role = self.roles.get(request.agent)
            if role is None:
                taken = set(self.roles.values())
                if PARENT not in taken and self.marker in _user_text(request):
                    role = PARENT
                elif PARENT in taken:
                    role = next((r for r in self.order if r not in taken), OTHER)
                else:
                    role = OTHER
                self.roles[request.agent] = role
            queue = self._queues.get(role)
            step: Reply = queue.popleft() if queue else DEFAULT_REPLY
        if role == self.caller and any(m.role == "tool" and m.toolCallId == TRIGGER_CALL
                                       for m in request.messages):
            self.trigger_returned.set()
        reply = step(request) if callable(step) else step
        with self._lock:
            self.exchanges.append(Exchange(request=request, reply=reply, marker=role))
        return reply

    def of(self, role: str) -> list[Exchange]:
        with self._lock:
            return [e for e in self.exchanges if e.marker == role]

    def agent_of(self, role: str) -> str | None:
        with self._lock:
            return next((a for a, r in self.roles.items() if r == role), None)

    def hold_child(self, hold: float) -> None:
        """Give the child's first reply once the caller got the trigger's result, or after
        ``hold`` s (a child run in the foreground blocks its caller, which never gets it)."""
        queue = self._queues[CHILD]
        first = queue[0]

        def held(request: ModelRequest) -> ModelReply:
            self.foreground = not self.trigger_returned.wait(hold)
            return first(request) if callable(first) else first

        queue[0] = held

    def script_left(self, role: str) -> int:
        with self._lock:
            return len(self._queues.get(role, ()))


def via_role(k: int) -> str:
    """The role of the agent the ``k``-th step of ``trigger.via`` started (1-based)."""
    return f"via-{k}"


def via_call(k: int) -> str:
    return f"promise-via-{k}"


def forbidden_tools(file: PromisesFile, promise: Promise) -> list[str]:
    """The deployment tools the child may not call: ``never`` names, and with ``exactly`` every
    registered tool outside it (the trigger tool is the delegation check's business)."""
    names = set(promise.tools.never) if promise.tools else set()
    if promise.tools is not None and promise.tools.exactly is not None:
        names |= {t.name for t in file.deployment.tool_specs()} - set(promise.tools.exactly)
    names.discard(promise.trigger.tool)
    return sorted(names)


_EXAMPLES: dict[str, Any] = {"string": "x", "integer": 0, "number": 0, "boolean": False,
                             "array": [], "object": {}, "null": None}


def valid_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments that satisfy a tool's declared object schema (every required property with a
    value of its type, an ``enum``'s first value): a forged call must be refused for *who*
    calls, not for a malformed argument."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    out: dict[str, Any] = {}
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        found = properties.get(name)
        prop: dict[str, Any] = found if isinstance(found, dict) else {}
        if isinstance(prop.get("enum"), list) and prop["enum"]:
            out[name] = prop["enum"][0]
        elif prop.get("type") == "object":
            out[name] = valid_arguments(prop)
        else:
            kind = prop.get("type")
            out[name] = _EXAMPLES.get(kind if isinstance(kind, str) else "string", "x")
    return out


def _child_script(file: PromisesFile, promise: Promise) -> list[Reply]:
    replies: list[Reply] = []
    schemas = {t.name: t.parameters for t in file.deployment.tool_specs()}
    if promise.refuses.calls:
        for i, name in enumerate(forbidden_tools(file, promise)):
            replies.append(call(name, valid_arguments(schemas.get(name, {})), f"forged-{i}"))
    if promise.refuses.delegation:
        replies.append(call(promise.trigger.tool, dict(promise.trigger.arguments), DELEGATE_CALL))
    replies.append(text("done"))
    return replies
