"""Promises checked on the model wire: the kit drives a delegation and judges what the child got.

For each promise of a :class:`~.promises_file.PromisesFile` (docs/promises.md):

1. a fresh deployment of the target with the file's persona and tools;
2. the kit scripts the parent's model (through the gateway) to call the trigger tool with the
   promised arguments; the first agent other than the parent that asks the model is the child;
3. the child's model is scripted too: inside its turn it calls, one by one, every deployment
   tool outside its promise and then the trigger tool again (the forged calls);
4. the judge reads the record: the child's requests (persona, tools, schemas), the tool results
   of the forged calls, the tool bodies that ran and the sessions published.

A result is one :class:`PromiseItem` per promise and aspect, with what was expected, what was
observed, the recorded exchange and a one-line replay. A trigger the target never performs is
an ``error`` item for that promise, never a pass; a child that never asks its model breaks
``persona`` and ``tools`` and says so.
"""

from __future__ import annotations

import contextlib
import secrets
import shlex
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from subagent_tck.spec import TckError

from ..core.exitcode import TARGET_CODES
from ..core.gateway import DEFAULT_REPLY, Exchange, Gateway, Reply, _user_text, call, text
from ..core.promises_file import Promise, PromisesFile
from ..core.promises_report import PromiseItem, PromisesReport, Status
from ..core.protocol import DeploymentConfig, ModelReply, ModelRequest, ToolSpec
from ..core.target import Deployment, Target

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


def forbidden_tools(file: PromisesFile, promise: Promise) -> list[str]:
    """The deployment tools the child may not call: ``never`` names, and with ``exactly`` every
    registered tool outside it (the trigger tool is the delegation check's business)."""
    names = set(promise.tools.never) if promise.tools else set()
    if promise.tools is not None and promise.tools.exactly is not None:
        names |= {t.name for t in file.deployment.tool_specs()} - set(promise.tools.exactly)
    names.discard(promise.trigger.tool)
    return sorted(names)


def _tool_result(exchanges: list[Exchange], call_id: str) -> dict[str, Any] | None:
    for exchange in exchanges:
        for message in exchange.request.messages:
            if message.role == "tool" and message.toolCallId == call_id:
                return {"isError": message.isError, "content": message.content}
    return None


def _collapse(found: dict[str, list[int]], total: int) -> str:
    """Problems seen in several requests as one phrase each: "in request(s) 1, 2 of 3"."""
    return "; ".join(f"{p} (in request {', '.join(map(str, ns))} of {total})"
                     for p, ns in found.items())


def _names(request: ModelRequest) -> list[str]:
    return [t.name for t in request.tools]


class _Judge:
    def __init__(self, file: PromisesFile, promise: Promise, replay: str) -> None:
        self.file = file
        self.promise = promise
        self.replay = replay
        self.items: list[PromiseItem] = []
        self.exchange: list[dict[str, Any]] = []

    def add(self, aspect: str, status: Status, message: str, expected: Any = None,
            observed: Any = None) -> None:
        self.items.append(PromiseItem(
            promise=self.promise.id, aspect=aspect, status=status, message=message,
            expected=expected, observed=observed, replay=self.replay,
            exchange=self.exchange if status != "kept" else [],
        ))


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


#: The longest a background child's first reply is held for its caller's turn to go on.
HOLD = 5.0


def via_call(k: int) -> str:
    return f"promise-via-{k}"


def check_promise(target: Target, file: PromisesFile, promise: Promise,
                  replay: str = "") -> list[PromiseItem]:
    """Deploy, drive the trigger, and judge one promise."""
    marker = f"tck-promise-{secrets.token_hex(6)}"
    trigger = promise.trigger
    calls = [call(step.tool, dict(step.arguments), via_call(k))
             for k, step in enumerate(trigger.via, start=1)]
    calls.append(call(trigger.tool, dict(trigger.arguments), TRIGGER_CALL))
    child = _child_script(file, promise)
    gateway = PromiseGateway(marker, [calls[0], text("done")], child,
                             [[c, text("done")] for c in calls[1:]])
    if trigger.background:
        gateway.hold_child(min(trigger.wait, HOLD))
    judge = _Judge(file, promise, replay)
    config = DeploymentConfig(
        edition=file.deployment.edition,
        persona=file.deployment.persona,
        tools=[ToolSpec(name=t.name, description=t.description, parameters=t.parameters)
               for t in file.deployment.tool_specs()],
    )
    try:
        deployment = target.deploy(config, gateway)
    except TckError as exc:
        if exc.code in TARGET_CODES:
            raise
        judge.add("trigger", "error", f"the target refused the deployment: {exc.code.value}: "
                  f"{exc.message}")
        return judge.items
    except Exception as exc:  # an in-process target that crashed
        judge.add("trigger", "error", f"deploying raised {type(exc).__name__}: {exc}")
        return judge.items
    try:
        _drive(deployment, gateway, judge, marker)
    except TckError as exc:
        if exc.code in TARGET_CODES:
            raise
        _failed_while_judging(judge, gateway, f"{exc.code.value}: {exc.message}")
    except Exception as exc:  # an in-process target that crashed while being observed
        _failed_while_judging(judge, gateway, f"{type(exc).__name__}: {exc}")
    finally:
        with contextlib.suppress(Exception):  # the verdict is made; a failed close keeps it
            deployment.close()
    return judge.items


def _failed_while_judging(judge: _Judge, gateway: PromiseGateway, why: str) -> None:
    judge.exchange = gateway.transcript()
    judged = {i.aspect for i in judge.items}
    judge.add("observe", "error", f"the target failed while the kit read the record ({why}); "
              f"judged before it: {', '.join(sorted(judged)) or 'nothing'}")


def _step_problem(exchanges: list[Exchange], tool: str, call_id: str, who: str) -> tuple[
        str, Any, Any] | None:
    """Why ``who`` did not make its delegation (message, expected, observed), or None."""
    if not exchanges:
        return (f"{who} never asked its model, so its call of {tool!r} was never made",
                f"a model request from {who}", None)
    offered = _names(exchanges[0].request)
    if tool not in offered:
        return (f"{who} was never offered {tool!r}, so the delegation never happened",
                tool, offered)
    result = _tool_result(exchanges, call_id)
    if result is None:
        return (f"no result of {who}'s {tool!r} call came back to its model",
                "a tool result", None)
    if result["isError"]:
        return f"{who}'s call of {tool!r} was refused", "a delegation", result
    return None


def _who(role: str) -> str:
    if role.startswith("via-"):  # the agent the k-th step started (0-based in the file)
        return f"the via[{int(role[4:]) - 1}] child"
    return f"the {role}"


def _drive(deployment: Deployment, gateway: PromiseGateway, judge: _Judge, marker: str) -> None:
    promise = judge.promise
    trigger = promise.trigger
    try:
        if trigger.agent_depth:
            agent = deployment.create_agent(header_depth=trigger.agent_depth).agent
        else:
            agent = deployment.root().agent
        deployment.run_turn(agent, f"{marker} Delegate with the {trigger.tool} tool.")
    except TckError as exc:
        if exc.code in TARGET_CODES:
            raise
        judge.exchange = gateway.transcript()
        judge.add("trigger", "error", f"the parent's turn was refused: {exc.code.value}: "
                  f"{exc.message}")
        return
    except Exception as exc:  # an in-process target that crashed: this promise is not shown
        judge.exchange = gateway.transcript()
        judge.add("trigger", "error", f"the target raised {type(exc).__name__}: {exc}")
        return
    if trigger.background:
        _await_background(deployment, gateway, trigger.wait)
    judge.exchange = gateway.transcript()
    # the parent makes via[0], the agent it started via[1], ...: the callers are the roles in
    # order, one more of them than steps (the last caller makes the trigger)
    steps = [(role, step.tool, via_call(k)) for k, (role, step)
             in enumerate(zip(gateway.order, trigger.via, strict=False), start=1)]
    steps.append((gateway.caller, trigger.tool, TRIGGER_CALL))
    for role, tool, call_id in steps:
        problem = _step_problem(gateway.of(role), tool, call_id, _who(role))
        if problem is not None:
            message, expected, observed = problem
            judge.add("trigger", "error", message, expected=expected, observed=observed)
            return
    child = gateway.of(CHILD)
    if trigger.background and child and gateway.foreground:
        judge.add("trigger", "error", f"{_who(gateway.caller)}'s {trigger.tool!r} call ran its "
                  "child in the foreground: the call did not return while the child waited "
                  f"{min(trigger.wait, HOLD):g} s for its model, so the target started no "
                  "background child", expected="the call returns before the child's first "
                  "reply", observed="the call returned only after the child ran")
        return
    path = " -> ".join(t for _, t, _ in steps)
    judge.add("trigger", "kept", f"{_who(gateway.caller)} called {trigger.tool!r} and got a "
              "result" + (f" (delegations: {path})" if trigger.via else "")
              + (", its child ran in the background" if trigger.background else ""))
    _judge_wire(judge, [e.request for e in child])
    _judge_refusals(judge, deployment, gateway, child)


def _await_background(deployment: Deployment, gateway: PromiseGateway, wait: float) -> None:
    """After the caller's turn: wait (up to ``wait`` s) for the background child to ask its
    model, use its script, and stop (``run.stopped`` of its agent)."""
    until = time.monotonic() + wait
    while time.monotonic() < until:
        agent = gateway.agent_of(CHILD)
        if agent is not None and not gateway.script_left(CHILD) and any(
                e.kind == "run.stopped" and e.agent == agent for e in deployment.events()):
            return
        time.sleep(0.05)


def _judge_wire(judge: _Judge, requests: list[ModelRequest]) -> None:
    promise, file = judge.promise, judge.file
    never_asked = "the child never made a model request, so nothing it got can be shown"
    if promise.persona is not None:
        if not requests:
            judge.add("persona", "broken", never_asked, expected=promise.persona.contains,
                      observed=None)
        else:
            seen_problems: dict[str, list[int]] = {}
            for n, request in enumerate(requests, start=1):
                missing = [t for t in promise.persona.contains if t not in request.system]
                if missing:
                    seen_problems.setdefault(f"the child's prompt lacks {missing}",
                                             []).append(n)
                if promise.persona.parent_absent and file.deployment.persona in request.system:
                    seen_problems.setdefault("the child's prompt carries the parent's persona",
                                             []).append(n)
            problems = [_collapse(seen_problems, len(requests))] if seen_problems else []
            expected = {"contains": promise.persona.contains,
                        "absent": [file.deployment.persona] if promise.persona.parent_absent
                        else []}
            if problems:
                judge.add("persona", "broken", "; ".join(problems), expected=expected,
                          observed=requests[0].system)
            else:
                judge.add("persona", "kept", "every child request carries the persona",
                          expected=expected)
    if promise.tools is not None:
        want = promise.tools
        expected = want.model_dump(exclude_defaults=True)
        if not requests:
            judge.add("tools", "broken", never_asked, expected=expected, observed=None)
        else:
            tally: dict[str, list[int]] = {}
            for n, request in enumerate(requests, start=1):
                bad: list[str] = []
                got = _names(request)
                seen = set(got)
                if want.exactly is not None and (seen != set(want.exactly)
                                                 or len(got) != len(seen)):
                    extra = sorted(seen - set(want.exactly))
                    lacking = sorted(set(want.exactly) - seen)
                    bad.append(f"the child got {sorted(got)} (extra {extra}, "
                                    f"missing {lacking})")
                lacking = sorted(set(want.at_least) - seen)
                if lacking:
                    bad.append(f"the child lacks {lacking}")
                banned = sorted(set(want.never) & seen)
                if banned:
                    bad.append(f"the child got forbidden {banned}")
                for problem in bad:
                    tally.setdefault(problem, []).append(n)
            problems = [_collapse(tally, len(requests))] if tally else []
            observed = sorted(_names(requests[0]))
            if problems:
                judge.add("tools", "broken", "; ".join(problems), expected, observed)
            else:
                judge.add("tools", "kept", f"the child saw {observed}", expected, observed)
    for name, schema in promise.schemas.items():
        aspect = f"schema:{name}"
        if not requests:
            judge.add(aspect, "broken", never_asked, schema, None)
            continue
        found = next((t for t in requests[0].tools if t.name == name), None)
        if found is None:
            judge.add(aspect, "broken", f"the child's first request has no tool {name!r}",
                      schema, None)
        elif found.parameters != schema:
            judge.add(aspect, "broken", f"the child's {name!r} has other parameters", schema,
                      found.parameters)
        else:
            judge.add(aspect, "kept", f"the child's {name!r} has the promised parameters",
                      schema, found.parameters)
    if promise.model is not None:
        _judge_model(judge, requests, never_asked)


def _judge_model(judge: _Judge, requests: list[ModelRequest], never_asked: str) -> None:
    """``model``: every child request names exactly the promised model (the chat body's
    ``model``, docs/driver-api.md "Model gateway"). A target that reports none cannot show the
    promise: an error saying so, never a pass."""
    want = judge.promise.model
    if not requests:
        judge.add("model", "broken", never_asked, want, None)
        return
    seen = [r.model for r in requests]
    if all(m is None for m in seen):
        judge.add("model", "error", "the target never reported the model its child runs with "
                  "(each chat request's model was the placeholder or absent), so this promise "
                  "cannot be shown: the runtime must send the child's model in the chat body",
                  want, None)
        return
    tally: dict[str, list[int]] = {}
    for n, model in enumerate(seen, start=1):
        if model != want:
            got = "no model" if model is None else f"model {model!r}"
            tally.setdefault(f"the child asked for {got}", []).append(n)
    observed = sorted({m for m in seen if m is not None})
    if tally:
        judge.add("model", "broken", _collapse(tally, len(seen)), want,
                  observed[0] if len(observed) == 1 else observed)
    else:
        judge.add("model", "kept", f"every child request asked for {want!r}", want, want)


def _judge_refusals(judge: _Judge, deployment: Deployment, gateway: PromiseGateway,
                    child: list[Any]) -> None:
    promise = judge.promise
    child_agent = gateway.agent_of(CHILD)
    observation = deployment.observe()
    forged = forbidden_tools(judge.file, promise) if promise.refuses.calls else []
    if forged:
        if not child:
            judge.add("refuses:calls", "error", "the child never asked its model, so no call "
                      "could be forged in its turn", forged, None)
        else:
            problems, seen = [], {}
            for i, name in enumerate(forged):
                result = _tool_result(child, f"forged-{i}")
                ran = [v.arguments for v in observation.invocations
                       if v.tool == name and v.agent == child_agent]
                seen[name] = {"result": result, "bodyRan": bool(ran)}
                if result is None:
                    problems.append(f"no result came back for the forged call of {name!r}")
                elif not result["isError"]:
                    problems.append(f"the call of {name!r} was not refused")
                if ran:
                    problems.append(f"the body of {name!r} ran")
            expected = {n: {"isError": True, "bodyRan": False} for n in forged}
            if problems:
                judge.add("refuses:calls", "broken", "; ".join(problems), expected, seen)
            else:
                judge.add("refuses:calls", "kept", f"{len(forged)} forged call(s) refused, no "
                          "body ran", expected, seen)
    if promise.refuses.delegation:
        tool = promise.trigger.tool
        if not child:
            judge.add("refuses:delegation", "error", "the child never asked its model, so no "
                      "further delegation could be forged", f"{tool!r} refused", None)
            return
        result = _tool_result(child, DELEGATE_CALL)
        session = next((e.session for e in observation.events
                        if e.kind == "agent.published" and e.agent == child_agent), None)
        grandchildren = [h.session for h in observation.sessions
                         if session is not None and h.parent == session]
        others = gateway.of(OTHER)
        problems = []
        if result is None:
            problems.append(f"no result came back for the forged call of {tool!r}")
        elif not result["isError"]:
            problems.append(f"the child's call of {tool!r} was not refused")
        if grandchildren:
            problems.append(f"a grandchild was published: {grandchildren}")
        if others:
            problems.append(f"{len(others)} model request(s) came from a grandchild")
        observed = {"result": result, "grandchildren": grandchildren}
        if problems:
            judge.add("refuses:delegation", "broken", "; ".join(problems),
                      {"isError": True, "grandchildren": []}, observed)
        else:
            judge.add("refuses:delegation", "kept", f"the child's {tool!r} call was refused "
                      "and published nothing", {"isError": True, "grandchildren": []}, observed)


def check_all(target: Target, file: PromisesFile, *, target_spec: str = "", path: str = "",
              only: list[str] | None = None,
              progress: Callable[[PromiseItem], None] | None = None,
              keep_going: bool = False, deadline: float | None = None) -> PromisesReport:
    """Every promise of the file (or those named by ``only``), in file order.

    A target that breaks (unreachable, off-protocol, timed out) ends the command, unless
    ``keep_going`` (``certify --promises``): then that promise is an ``error`` item and the
    next one is tried. Past ``deadline`` (a ``time.monotonic()`` value) a promise is not
    checked and is an ``error`` item saying so."""
    started = time.monotonic()
    items: list[PromiseItem] = []
    for promise in file.promise:
        if only and promise.id not in only:
            continue
        replay = (f"subagent-tck promises --target {shlex.quote(target_spec)} "
                  f"{shlex.quote(path)} --only {promise.id}")
        if deadline is not None and time.monotonic() >= deadline:
            found = [PromiseItem(promise=promise.id, aspect="trigger", status="error",
                                 message="the run's deadline (--deadline) expired before this "
                                 "promise was checked", replay=replay)]
        else:
            try:
                found = check_promise(target, file, promise, replay)
            except TckError as exc:
                if not keep_going or exc.code not in TARGET_CODES:
                    raise
                found = [PromiseItem(promise=promise.id, aspect="trigger", status="error",
                                     message=f"the target broke while this promise was "
                                     f"checked: {exc.code.value}: {exc.message}",
                                     replay=replay)]
        for item in found:
            items.append(item)
            if progress is not None:
                progress(item)
    return PromisesReport(target=target_spec, file=path, items=items,
                          seconds=round(time.monotonic() - started, 3))
