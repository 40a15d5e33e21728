"""The driver operations the fuzzer performs, each run on the target and the oracle at once.

Every function takes the :class:`~.lockstep.Lockstep` and the step's JSON arguments, performs
the operation, and compares (see the lockstep's docstring for what is compared and
:mod:`.rulemap` for which rule each comparison belongs to). Depth arguments are raw JSON text
(``{"json": "1e2"}``, see :mod:`.children`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from subagent_tck.conformance.core.protocol import ToolSpec
from subagent_tck.spec import RUN_CODE, STRUCTURED_OUTPUT, ErrorCode, PresentationMode, check_depth

from .ahead import Read
from .children import start
from .lockstep import Lockstep
from .model import Expect
from .policies import dispose_policy, install_policy
from .rulemap import restrict_rule
from .run_code import run_code
from .sessions import create_agent, plant, resume, rewrite
from .step import Step
from .subagent import (
    add_provider,
    load_tool,
    rebind,
    remove_provider,
    set_host_depth,
    unload_tool,
)
from .tool_calls import call_tool

Operation = Callable[..., None]


def _expect(lock: Lockstep, obs: str, expect: Expect, error: Any, rule: str | None) -> bool:
    return lock.check_outcome(obs, expect.codes, expect.may_accept, error, rule, expect.reason)


def _refusable(expect: Expect) -> bool:
    return bool(expect.codes) or expect.may_accept


# --- tools ---------------------------------------------------------------------------------


def _after(lock: Lockstep, reads: list[Read], refusable: bool) -> None:
    """Plan the reads after a change: a snapshot too where it may be refused (fuzz/ahead.py)."""
    lock.expect([("observe", {}), *reads] if refusable else reads)


def register_global(lock: Lockstep, name: str) -> None:
    expect = lock.model.expect_register_global(name)
    refusable = _refusable(expect)
    before = lock.snapshot_later() if refusable else None
    spec = ToolSpec(name=name, description=f"global {name}")
    _after(lock, lock.all_views_reads(), refusable)
    _, error = lock.call("register_tool", lambda: lock.deployment.register_tool(spec, None))
    rule = "TF-06" if name == RUN_CODE else None
    if _expect(lock, "register-global", expect, error, rule):
        lock.model.register_global(name)
    elif before is not None:
        lock.unchanged(before(), "nothing-changed", rule)
    lock.check_all_views()


def unregister_global(lock: Lockstep, name: str) -> None:
    expect = lock.model.expect_unregister_global(name)
    lock.expect(lock.all_views_reads())
    _, error = lock.call("unregister_tool", lambda: lock.deployment.unregister_tool(name, None))
    _expect(lock, "unregister-global", expect, error, "TF-11")
    if name in lock.model.globals:
        lock.model.unregister_global(name)
    lock.check_all_views()


def register_local(lock: Lockstep, agent: str, name: str) -> None:
    model = lock.agent(agent)
    expect = lock.model.expect_register_local(model, name)
    spec = ToolSpec(name=name, description=f"local {name} of {agent}")
    target = lock.agent_id(agent)
    lock.expect(lock.scope_views_reads(agent))
    _, error = lock.call("register_tool", lambda: lock.deployment.register_tool(spec, target))
    elsewhere = any(name in a.scope.locals for a in lock.model.agents.values() if a is not model)
    # a duplicate refused here while only another scope has the name: that scope leaked (TF-13)
    rule = "TF-06" if name == RUN_CODE else ("TF-13" if elsewhere else "TF-05")
    if _expect(lock, "register-local", expect, error, rule):
        model.scope.locals.append(name)
    lock.check_scope_views(agent)


def unregister_local(lock: Lockstep, agent: str, name: str) -> None:
    model = lock.agent(agent)
    expect = lock.model.expect_unregister_local(model, name)
    target = lock.agent_id(agent)
    lock.expect(lock.scope_views_reads(agent))
    _, error = lock.call("unregister_tool", lambda: lock.deployment.unregister_tool(name, target))
    _expect(lock, "unregister-local", expect, error, "TF-04")
    if name in model.scope.locals:
        model.scope.locals.remove(name)
    lock.check_scope_views(agent)


# --- restrictions and mode -----------------------------------------------------------------


def restrict(lock: Lockstep, agent: str, value: Any, label: str | None = None) -> None:
    model = lock.agent(agent)
    expect, restriction, offending = lock.model.expect_restrict(value)
    refusable = _refusable(expect)
    before = lock.snapshot_later() if refusable else None
    target = lock.agent_id(agent)
    sent = copy.deepcopy(value)
    _after(lock, lock.scope_views_reads(agent), refusable)
    handle, error = lock.call(
        "install_restriction", lambda: lock.deployment.install_restriction(target, sent)
    )
    rule = restrict_rule(value, offending, accepted_wrongly=error is None)
    if _expect(lock, "restrict", expect, error, rule):
        assert restriction is not None
        label = label or lock.model.new_label(f"{agent}.r")
        lock.handles[label] = str(handle)
        lock.model.install(model, label, restriction, value)
    else:
        assert error is not None and before is not None
        lock.check_offending(error, offending)
        lock.unchanged(before(), "nothing-changed", rule)
    lock.check_scope_views(agent)


def dispose(lock: Lockstep, agent: str, restriction: str) -> None:
    model = lock.agent(agent)
    expect = lock.model.expect_dispose(model, restriction)
    handle = lock.handles.get(restriction, f"never-issued-{restriction}")
    target = lock.agent_id(agent)
    lock.expect(lock.scope_views_reads(agent))
    _, error = lock.call(
        "dispose_restriction", lambda: lock.deployment.dispose_restriction(target, handle)
    )
    _expect(lock, "dispose", expect, error, "TF-14")
    if restriction in model.scope.issued:
        lock.model.dispose(model, restriction)
    lock.check_scope_views(agent)


def set_mode(lock: Lockstep, agent: str, mode: str) -> None:
    target = lock.agent_id(agent)
    lock.expect(lock.scope_views_reads(agent))
    _, error = lock.call(
        "set_mode", lambda: lock.deployment.set_mode(target, PresentationMode(mode))
    )
    if _expect(lock, "set-mode", Expect.ok(), error, "TF-06"):
        lock.agent(agent).scope.mode = PresentationMode(mode)
    lock.check_scope_views(agent)


# --- reading a scope -----------------------------------------------------------------------


def view(lock: Lockstep, agent: str | None) -> None:
    lock.check_view(agent)


def schemas(lock: Lockstep, agent: str) -> None:
    lock.check_schemas(agent)


def sdk(lock: Lockstep, agent: str) -> None:
    lock.check_sdk(agent)


def _visible(lock: Lockstep, agent: str, name: str) -> tuple[str, str] | None:
    for entry in lock.model.view(lock.agent(agent)):
        if entry.name == name:
            return entry.name, entry.origin.value
    return None


def lookup(lock: Lockstep, agent: str, name: str) -> None:
    target = lock.agent_id(agent)
    found, error = lock.call("lookup", lambda: lock.deployment.lookup(target, name))
    observed = None if found is None else (found.name, found.origin.value)
    if error is not None and error.code is ErrorCode.UNKNOWN_TOOL:
        observed = None
    elif error is not None:
        raise lock.diverge("lookup", f"lookup refused: {error.message}", None, error.to_json())
    expected = _visible(lock, agent, name)
    if observed != expected:
        rule = lock.resolver_rule(agent, {name}, presented=False)
        raise lock.diverge(
            "lookup", f"lookup of {name!r} in {agent}", expected, observed, rule
        )


def execute(lock: Lockstep, agent: str, name: str) -> None:
    target = lock.agent_id(agent)
    expected = _visible(lock, agent, name)
    earlier = lock.read_later("invocations")
    lock.expect([("invocations", {})])
    arguments: dict[str, Any] = {"probe": len(lock.steps)}
    result, error = lock.call("execute", lambda: lock.deployment.execute(target, name, arguments))
    before = len(earlier())
    ran = lock._guard("invocations", lock.deployment.invocations)[before:]
    code = error.code.value if error is not None else (result.code if result else None)
    failed = error is not None or (result is not None and result.isError)
    if expected is None:
        if not failed or code != ErrorCode.UNKNOWN_TOOL.value or ran:
            rule = lock.resolver_rule(agent, {name}, presented=False)
            raise lock.diverge(
                "execute", f"a call of {name!r}, which {agent} cannot see, must get an "
                "UNKNOWN_TOOL error result and run no body",
                {"isError": True, "code": "UNKNOWN_TOOL", "bodies run": []},
                {"isError": failed, "code": code, "bodies run": [i.tool for i in ran]}, rule,
            )
        return
    if name in (RUN_CODE, STRUCTURED_OUTPUT):  # bodies of the target's own, not the kit's
        if code == ErrorCode.UNKNOWN_TOOL.value:
            raise lock.diverge("execute", f"{name} is visible but unknown to execution",
                               f"{name} runs", code, "TF-12")
        return
    bodies = [(i.tool, i.origin.value, i.agent) for i in ran]
    wanted = [(name, expected[1], target)]
    if name not in lock.model.wire(lock.agent(agent)):
        # only run_code reaches it (ptc): a direct call is missing from the schemas, and
        # whether it runs is not fixed by TF-12 (docs/rules.md#TF-12), but it runs its own
        # body once or is UNKNOWN_TOOL with no body run (tool_filter_calls.py asks the same)
        if (failed and code == ErrorCode.UNKNOWN_TOOL.value and not bodies) or (
                not failed and bodies == wanted):
            return
        raise lock.diverge(
            "execute", f"executing {name!r}, which only run_code reaches in {agent}, must run "
            "its own body once or be an UNKNOWN_TOOL error result that runs none",
            {"either": [{"isError": False, "bodies run": wanted},
                        {"isError": True, "code": "UNKNOWN_TOOL", "bodies run": []}]},
            {"isError": failed, "code": code, "bodies run": bodies},
            "TF-05" if bodies and bodies[0][1] != expected[1] else "TF-12",
        )
    if failed or bodies != wanted:
        wrong_body = bool(bodies) and bodies[0][1] != expected[1]
        rule = "TF-05" if wrong_body else lock.resolver_rule(agent, {name}, presented=False)
        raise lock.diverge(
            "execute", f"calling {name!r} in {agent} must run the {expected[1]} body once",
            {"isError": False, "bodies run": wanted},
            {"isError": failed, "code": code, "bodies run": bodies}, rule,
        )


def prompt(lock: Lockstep, agent: str) -> None:
    lock.check_prompt(agent)


def headers(lock: Lockstep) -> None:
    found = {h.session: h for h in lock._guard("sessions", lock.deployment.sessions)}
    for label, session in lock.model.sessions.items():
        sid = lock.session_ids[label]
        header = found.get(sid)
        observed = None if header is None else header.delegationDepth
        if header is None or not _same_depth(observed, session.header):
            raise lock.diverge(
                "headers", f"stored delegationDepth of session {label}", session.header,
                observed, "DE-09" if session.composed else "DE-01",
            )


def _same_depth(a: object, b: object) -> bool:
    left, right = check_depth(a), check_depth(b)
    if left.ok or right.ok:
        return left.value == right.value
    return True  # both outside the domain: the stored form of a bad value is free



OPERATIONS: dict[str, Operation] = {
    "register_global": register_global,
    "unregister_global": unregister_global,
    "register_local": register_local,
    "unregister_local": unregister_local,
    "restrict": restrict,
    "dispose": dispose,
    "set_mode": set_mode,
    "view": view,
    "schemas": schemas,
    "sdk": sdk,
    "lookup": lookup,
    "execute": execute,
    "run_code": run_code,
    "prompt": prompt,
    "headers": headers,
    "create_agent": create_agent,
    "start": start,
    "plant": plant,
    "rewrite": rewrite,
    "resume": resume,
    "load_tool": load_tool,
    "unload_tool": unload_tool,
    "remove_provider": remove_provider,
    "add_provider": add_provider,
    "set_host_depth": set_host_depth,
    "call_tool": call_tool,
    "rebind": rebind,
    "install_policy": install_policy,
    "dispose_policy": dispose_policy,
}



def apply(lock: Lockstep, step: Step) -> None:
    """Run ``step`` in ``lock``: the operation it names, on the target and the oracle."""
    lock.apply(step, OPERATIONS.get(step.op))


__all__ = ["OPERATIONS", "Operation", "apply"]
