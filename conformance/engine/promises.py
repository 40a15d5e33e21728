"""Promises checked on the model wire: the kit drives a delegation and judges what the child got.

For each promise of a :class:`~.promises_file.PromisesFile` (docs/promises.md):

1. a fresh deployment of the target with the file's persona and tools;
2. the kit scripts the parent's model (through the gateway, :mod:`.promise_scripts`) to call
   the trigger tool with the promised arguments; the first agent other than the parent that
   asks the model is the child;
3. the child's model is scripted too: inside its turn it calls, one by one, every deployment
   tool outside its promise and then the trigger tool again (the forged calls);
4. the judge (:mod:`.promise_judge`) reads the record: the child's requests (persona, tools,
   schemas), the tool results of the forged calls, the tool bodies that ran and the sessions
   published.

A result is one :class:`PromiseItem` per promise and aspect, with what was expected, what was
observed, the recorded exchange and a one-line replay. A trigger the target never performs is
an ``error`` item for that promise, never a pass; a child that never asks its model breaks
``persona`` and ``tools`` and says so.
"""

from __future__ import annotations

import contextlib
import secrets
import shlex
import time
from collections.abc import Callable
from typing import Any

from subagent_tck.spec import TckError

from ..core.exitcode import TARGET_CODES
from ..core.gateway import Exchange, call, text
from ..core.promises_file import Promise, PromisesFile
from ..core.promises_report import PromiseItem, PromisesReport
from ..core.protocol import DeploymentConfig, ToolSpec
from ..core.target import Deployment, Target
from .promise_judge import _Judge, _judge_refusals, _judge_wire, _names, _tool_result
from .promise_scripts import CHILD, TRIGGER_CALL, PromiseGateway, _child_script, via_call

#: The longest a background child's first reply is held for its caller's turn to go on.
HOLD = 5.0


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
