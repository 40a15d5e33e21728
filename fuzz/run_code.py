"""``run_code`` executed (TF-12, docs/rules.md#tf-12): the agent's model runs one program of
SDK calls, ``tools.<name>(arguments)``, through the driver's ``run-code`` operation
(docs/driver-api.md#run-code), and what it reaches is compared with the oracle's view.

For every name the scope's SDK binds (the visible tools other than ``run_code``, in ``ptc`` and
``both`` modes; none in ``native``) the body of *that* view entry runs once, for that agent,
and its result is not an error; every other name (a global the scope's restrictions hide, a
name never registered, a case variant, ``run_code`` itself, anything in ``native`` mode) gets
an ``UNKNOWN_TOOL`` error result and runs no body. Bodies of ``run_code`` itself are not
counted (a runtime may log its transport as a tool run). A wrong answer is TF-12 when the
target's own view is right (execution strayed from the view), else the rule that explains the
wrong view; ``run_code`` reached through the SDK is TF-06.

A target without the operation (a driver protocol 1.0 adapter) is not judged here: the first
program tells, and the operation is a no-op for the rest of the deployment (the fixed check
``tool-filter-run-code-reach`` reports that target's TF-12 as an error).
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.core.protocol import SdkCall
from subagent_tck.conformance.engine.checks.tool_filter_run_code import (
    Unsupported,
    run_program,
    shown,
    unknown_tool,
)
from subagent_tck.spec import RUN_CODE, STRUCTURED_OUTPUT

from .lockstep import Lockstep


def run_code(lock: Lockstep, agent: str, names: list[str]) -> None:
    """One program of ``agent``'s model calling ``names`` through its SDK, in order."""
    if getattr(lock, "no_run_code", False):
        return
    model = lock.agent(agent)
    target = lock.agent_id(agent)
    bound = lock.model.sdk(model)
    origins = {e.name: e.origin.value for e in lock.model.view(model)}
    calls = [SdkCall(name=name, arguments={"probe": len(lock.steps), "call": n})
             for n, name in enumerate(names)]
    earlier = lock.read_later("invocations")
    lock.expect([("invocations", {})])
    answers = lock._guard("run_code", lambda: _program(lock, target, calls))
    before = len(earlier())
    if answers is None:  # no run-code operation: not judged here, nor again
        lock.no_run_code = True  # type: ignore[attr-defined]
        return
    ran = [(i.tool, i.origin.value, i.agent)
           for i in lock._guard("invocations", lock.deployment.invocations)[before:]
           if i.tool != RUN_CODE]
    # the target's own tools (structured_output, a subagent tool): their bodies and answers
    # are the target's; only whether the SDK binds them is judged
    loads = lock.subagent_tools
    owned = {STRUCTURED_OUTPUT, *(loads.names if loads is not None else ())}
    ran = [r for r in ran if r[0] not in owned]
    wanted = [(name, origins[name], target) for name in names
              if name in bound and name not in owned]
    wrong = {name for name, answer in zip(names, answers, strict=True)
             if (not unknown_tool(answer) if name not in bound
                 else unknown_tool(answer) if name in owned else _errored(answer))}
    if wrong or ran != wanted:
        # the names answered or run wrongly (a body of the wrong origin counts; a body run
        # twice or out of order names every body run)
        strays = wrong | {tool for tool, _, _ in set(ran) ^ set(wanted)} or {
            tool for tool, _, _ in (*ran, *wanted)}
        raise lock.diverge(
            "run-code", f"a run_code program of {agent} calling {names} must run exactly the "
            "bodies its SDK binds and get UNKNOWN_TOOL for every other name",
            {"bound": sorted(n for n in names if n in bound), "bodies run": wanted},
            {"answers": [shown(a) for a in answers], "bodies run": ran},
            lock.resolver_rule(agent, strays),
        )


def _program(lock: Lockstep, target: str, calls: list[SdkCall]) -> list[Any] | None:
    """The program's answers (see ``run_program``), or None when the target has no run-code
    operation (a driver protocol 1.0 adapter)."""
    try:
        return run_program(lock.deployment, target, calls)
    except Unsupported:
        return None


def _errored(answer: Any) -> bool:
    """A refusal, or an errored tool result (a bound name's body must answer)."""
    return bool(getattr(answer, "isError", True))
