"""TF-12 over its whole domain: every way a tool is called, for every way it is visible, with
the agent's presentation mode equal to the deployment's default or not (docs/rules.md#TF-12).

A scope's wire schemas, lookup, execution and ``run_code`` SDK come from one set, the view
presented per mode. A name is called three ways: by the agent's **model** (a tool call in a
turn: forged when the request did not offer it), by the **host** (``execute``), and through
**run_code** (a program calling ``tools.<name>``). It is visible three ways: **on the wire**
(a tool of the view in ``native`` or ``both`` mode), **only through run_code** (a tool of the
view in ``ptc`` mode, where the wire carries ``run_code`` alone) or **not at all** (a filtered
global, a name never registered, a case twin or prefix of a visible name). And the mode that
decides it is the agent's own (``set-mode``), whether or not it is the deployment's default.

What each call must do, judged against the target's own view (a wrong view is TF-01's):

- a tool on the wire: a model call and a host call run the body of its view entry once (the
  local body where a local shadows a global, docs/rules.md#TF-05); through run_code it runs
  where the mode binds it (``both``) and is ``UNKNOWN_TOOL`` where it does not (``native``);
- a tool only through run_code: run_code runs its view entry's body once; called directly
  (model or host) it is missing from the schemas: whether such a call runs is not fixed by
  TF-12, but it is never another body, never more than once, and the turn goes on;
- a name not visible: every call is ``UNKNOWN_TOOL``, no body runs, and a model's turn goes on
  with the error answered to the model.

Each of the 18 partitions (call x mode relation x visibility) is drawn at every seed
(:meth:`~..check.CheckContext.cover`): names from :mod:`._names`, restrictions, locals that
shadow globals or stand alone, both modes drawn.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    Origin,
    PresentationMode,
    TckError,
    sdk_binding_names,
    wire_tool_names,
)
from subagent_tck.spec import ViewEntry as SpecEntry

from ...core.gateway import call, text
from ...core.protocol import SdkCall, ToolResult
from ...core.target import Deployment
from ..check import CheckContext, check
from ..partitions import Partition
from ._clauses import said
from ._names import strangers, tool_names
from ._nonce import nonce
from ._observed import oracle_view
from ._starts import marker
from ._tool_filter_views import local_spec
from .tool_filter_run_code import Unsupported, run_program, unknown_tool

RULE = "TF-12"
CALLS = ("model-call", "host-execute", "run-code")
RELATIONS = ("same-mode", "other-mode")
VISIBILITY = ("wire", "sdk-only", "hidden")
MODES = (PresentationMode.NATIVE, PresentationMode.PTC, PresentationMode.BOTH)
#: The agent modes in which a name of each visibility exists.
_AGENT_MODES = {"wire": (PresentationMode.NATIVE, PresentationMode.BOTH),
                "sdk-only": (PresentationMode.PTC,), "hidden": MODES}
_WORDS = {"model-call": "the agent's model calls", "host-execute": "the host executes",
          "run-code": "a run_code program calls",
          "same-mode": "in the deployment's default mode",
          "other-mode": "in a mode the agent set, other than the deployment's default",
          "wire": "a tool on the wire", "sdk-only": "a tool only run_code reaches",
          "hidden": "a name the scope does not see"}


def visibility(state: dict[str, Any], name: str) -> str:
    """Where the oracle sees ``name`` in ``state``: on the wire, only through run_code, or
    not at all."""
    view = oracle_view(state["globals"], state["restrictions"], state["locals"],
                       state["agent_mode"])
    entries = [SpecEntry(n, Origin(o)) for n, o in view]
    if name in wire_tool_names(entries, state["agent_mode"]):
        return "wire"
    if name in sdk_binding_names(entries, state["agent_mode"]):
        return "sdk-only"
    return "hidden"


@st.composite
def case_st(draw: Any, call_kind: str, relation: str, vis: str) -> dict[str, Any]:
    """A scope (globals, a deny restriction, a local shadowing a global and a local of its
    own), the deployment's default mode and the agent's, and the names of visibility ``vis``
    to call: for a visible one, a global, a local and a local that shadows a global (each view
    entry's own body); for a hidden one, a filtered global, a case twin or prefix of a visible
    name, and a name never registered."""
    names = draw(tool_names(4, 8))
    globals_, local_only = names[:-1], names[-1]
    shadow, plain, rest = globals_[0], globals_[1], globals_[2:]
    denied = draw(st.lists(st.sampled_from(rest), unique=True, min_size=1, max_size=len(rest)))
    agent_mode = draw(st.sampled_from(_AGENT_MODES[vis]))
    default = agent_mode if relation == "same-mode" else draw(
        st.sampled_from([m for m in MODES if m is not agent_mode]))
    locals_ = [shadow, local_only]
    if vis == "hidden":
        seen = [shadow, plain, local_only, *(g for g in rest if g not in denied)]
        twins = strangers(seen, avoid=names)
        fresh = draw(tool_names(1, 1, avoid=[*names, *twins]))[0]
        targets = [draw(st.sampled_from(denied)), *([draw(st.sampled_from(twins))] if twins
                                                    else []), fresh]
    else:
        targets = [plain, local_only, shadow]
    return {"globals": globals_, "locals": locals_, "restrictions": [{"deny": denied}],
            "default_mode": default, "agent_mode": agent_mode, "names": targets,
            "call": call_kind, "relation": relation}


def _member(call_kind: str, relation: str, vis: str) -> Any:
    def inside(state: dict[str, Any]) -> bool:
        same = state["default_mode"] is state["agent_mode"]
        return (state["call"] == call_kind and same == (relation == "same-mode")
                and all(visibility(state, n) == vis for n in state["names"]))
    return inside


PARTITIONS = tuple(
    Partition(RULE, f"{c}-{r}-{v}", f"{_WORDS[c]} {_WORDS[v]}, {_WORDS[r]}",
              cases=case_st(c, r, v), member=_member(c, r, v))
    for c in CALLS for r in RELATIONS for v in VISIBILITY)


# --- the check ----------------------------------------------------------------------------


def build(ctx: CheckContext, state: dict[str, Any]) -> tuple[Deployment, str]:
    dep = ctx.deploy(tools=state["globals"], mode=state["default_mode"])
    agent = dep.root().agent
    with ctx.step(RULE, f"setting the agent's presentation mode {state['agent_mode'].value} "
                  f"(the deployment's default: {state['default_mode'].value})"):
        dep.set_mode(agent, state["agent_mode"])
    with ctx.step(RULE, f"registering the scope-local tools {state['locals']}"):
        for name in state["locals"]:
            dep.register_tool(local_spec(name), agent)
    for raw in state["restrictions"]:
        with ctx.step(RULE, f"installing the valid restriction {raw}"):
            dep.install_restriction(agent, raw)
    return dep, agent


def _errored(answer: Any) -> bool:
    return isinstance(answer, TckError) or (isinstance(answer, ToolResult) and answer.isError)


def _shown(answer: Any) -> Any:
    if isinstance(answer, TckError):
        return answer.to_json()
    return answer.model_dump(mode="json") if isinstance(answer, ToolResult) else answer


def _answers(ctx: CheckContext, dep: Deployment, agent: str,
             state: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Call each name of ``state`` the state's way: an answer per name (a tool result, or the
    refusal standing for it), and for a model's calls whether each was answered to the model
    and the turn completed."""
    names, kind = state["names"], state["call"]
    if kind == "model-call":
        ids = [f"tf-call-{i}" for i in range(len(names))]
        mark = ctx.gateway.script(marker(ctx, "tf-call"),
                                  *(call(n, call_id=i) for n, i in zip(names, ids, strict=True)),
                                  text(f"done {nonce(ctx, repr(state))}"))
        with ctx.step(RULE, f"running a turn whose model calls {names}"):
            result = dep.run_turn(agent, f"use the tools {mark}")
        later = [m for r in ctx.gateway.requests_for(mark)[1:] for m in r.messages]
        answered = [any(m.role == "tool" and m.toolCallId == i for m in later) for i in ids]
        results = list(result.toolResults)
        return ([results[k] if k < len(results) else None for k in range(len(names))],
                {"answered": answered, "stopReason": result.stopReason.value})
    if kind == "host-execute":
        answers: list[Any] = []
        for name in names:
            try:
                answers.append(dep.execute(agent, name, {}))
            except TckError as exc:  # a refusal with a code is the same answer over the driver
                answers.append(exc)
        return answers, {}
    try:
        return run_program(dep, agent, [SdkCall(name=n) for n in names]), {}
    except Unsupported as exc:
        ctx.fail(RULE, "the target does not implement the run-code operation of driver "
                 f"protocol 1.1 ({exc}); implement it (docs/driver-api.md#run-code)",
                 "a run-code operation", str(exc), error=True)
        ctx.abort()


def called(ctx: CheckContext, state: dict[str, Any]) -> None:
    dep, agent = build(ctx, state)
    mode, kind = state["agent_mode"], state["call"]
    view = {e.name: Origin(e.origin).value for e in dep.view(agent)}
    entries = [SpecEntry(n, Origin(o)) for n, o in view.items()]
    wire, bound = wire_tool_names(entries, mode), sdk_binding_names(entries, mode)
    since = len(dep.invocations())
    answers, turn = _answers(ctx, dep, agent, state)
    logged = dep.invocations()[since:]
    for number, (name, answer) in enumerate(zip(state["names"], answers, strict=True)):
        ran = [(i.tool, Origin(i.origin).value) for i in logged if i.tool == name]
        own = [(name, view[name])] if name in view else []
        where = ("on the wire" if name in wire else "only through run_code" if name in view
                 else "not visible")
        what = (f"{_WORDS[kind]} {name!r} ({where} in the target's own view, agent mode "
                f"{mode.value}, deployment default {state['default_mode'].value})")
        if (name in bound) if kind == "run-code" else (name in wire):
            ok, want = ran == own and not _errored(answer), f"its body ({own}) once, no error"
        elif kind != "run-code" and name in view:  # missing from the schemas: may run, or not
            ok = (ran == own and not _errored(answer)) or (not ran and _errored(answer))
            want = f"an error result and no body, or its own body ({own}) once"
        else:
            ok, want = not ran and unknown_tool(answer), "an UNKNOWN_TOOL error, no body run"
        if kind == "model-call":
            ok = ok and turn["answered"][number] and turn["stopReason"] == "completed"
            want += ", the result answered to the model and the turn completed"
        ctx.expect(RULE, ok, said(RULE, what), want,
                   {"answer": _shown(answer), "ran": ran, **turn})


@check(RULE, name="tool-filter-calls-by-visibility", per_provider=False, partitions=PARTITIONS)
def calls_by_visibility(ctx: CheckContext) -> None:
    """Every way a tool is called (by the model, by the host, through run_code), for a tool on
    the wire, only through run_code or not visible, in the agent's own mode whether or not it is
    the deployment's default: what runs is the view's entry, what is not visible is
    UNKNOWN_TOOL and runs nothing, and the turn goes on."""
    ctx.cover(RULE, lambda state: called(ctx, state))
