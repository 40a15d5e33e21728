"""TF-12 through execution: ``run_code`` reaches exactly the visible tools.

:mod:`.tool_filter_runtime` reads the SDK *bindings*; this check *executes* them, with the
driver's ``run-code`` operation (docs/driver-api.md#run-code): the agent's model calls
``run_code`` once with a program of SDK calls, ``tools.<name>(arguments)`` each, one after the
other (one program per round: a runtime that starts a fresh sandbox per program pays that once,
not once per name). For every name the
scope's SDK binds (the visible tools other than ``run_code``, in ``ptc`` and ``both`` modes;
none in ``native``, docs/rules.md#tf-12) the body of *that* view entry runs once (where a
scope-local tool shadows a global, the local body: docs/rules.md#tf-05; what arguments reach it
is not TF-12's subject and is not compared),
and its result comes back; every other name (a filtered global, a name never registered, one
that differs from a bound name only by case or is a prefix of one, ``run_code`` itself, and
every name in ``native`` mode) gets an ``UNKNOWN_TOOL`` error result and runs no body. Then
the registry or the scope changes (a restriction installed, a global unregistered or
registered) and a second program calls the changed name again: bindings must follow the live
view (docs/rules.md#tf-09).

As in the binding check, the expectation is the target's own view presented per mode (the
spec's :func:`~subagent_tck.spec.sdk_binding_names`): a wrong view is TF-01's business, an
execution that strays from the view is TF-12's. Invocations of ``run_code`` itself are not
counted (a runtime may log its transport as a tool run).

Names are drawn, not listed, from the kit's tool-name vocabulary (:mod:`._names`: every shape a
tool name takes in the wild, ``get_weather``, ``mcp__github__create_issue``, ``web-fetch``,
digits, non-ASCII letters, 64 characters long), with names that differ only by case or are
prefixes of each other; arguments are drawn JSON
objects (nested, unicode, quotes and backticks, integers up to 2^53).

A target without the operation (a driver protocol 1.0 adapter) cannot show that TF-12 holds:
the check reports an *error* naming the operation to implement, never a pass.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    RUN_CODE,
    ErrorCode,
    Origin,
    PresentationMode,
    TckError,
    sdk_binding_names,
)
from subagent_tck.spec import ViewEntry as SpecEntry

from ...core.protocol import SdkCall, ToolResult, ToolSpec
from ...core.target import Deployment
from ..check import REGISTRY, CheckContext, check
from ..partitions import Partition
from ._names import strangers, tool_names

RULE = "TF-12"
NAME = "tool-filter-run-code-reach"
MODES = (PresentationMode.PTC, PresentationMode.BOTH, PresentationMode.NATIVE)
MAX_SAFE = 2**53 - 1

# --- strategies ---------------------------------------------------------------------------

# Tool names come from the kit's one vocabulary (:mod:`._names`): realistic and awkward names,
# case twins, prefixes of each other, non-ASCII, 64 characters long.
_key = st.text(max_size=8).map(lambda k: k.lstrip("$"))  # "$..." keys are the wire's tags
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-MAX_SAFE, MAX_SAFE),
                    st.text(st.characters(exclude_categories=["Cs"]), max_size=12),
                    st.sampled_from(['"', "`${x}`", "\\", "\u2028", "');", "</script>"]))
_json = st.one_of(_scalar, st.lists(_scalar, max_size=3),
                  st.dictionaries(_key, st.one_of(_scalar, st.lists(_scalar, max_size=2)),
                                  max_size=3))
arguments_st = st.dictionaries(_key, _json, max_size=4)


@st.composite
def state_st(draw: st.DrawFn) -> dict[str, Any]:
    """Globals, locals (some shadowing globals), valid restrictions over the globals, a mode,
    call arguments and one live change made between two rounds of calls."""
    names = draw(tool_names(1, 6))
    split = draw(st.integers(1, len(names)))
    globals_, local_only = names[:split], names[split:]
    shadows = draw(st.lists(st.sampled_from(globals_), unique=True, max_size=2))
    restrictions = []
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.sampled_from(("allow", "deny")))
        restrictions.append({key: draw(st.lists(st.sampled_from(globals_), min_size=1,
                                                unique=True, max_size=len(globals_)))})
    fresh, added = draw(tool_names(2, 2, avoid=names))
    change = draw(st.sampled_from(("deny", "unregister", "register")))
    later: dict[str, Any] = {"register": added} if change == "register" else {
        change: draw(st.sampled_from(globals_))}
    return {"globals": globals_, "locals": [*shadows, *local_only],
            "restrictions": restrictions, "mode": draw(st.sampled_from(MODES)),
            "arguments": draw(arguments_st), "later": later, "fresh": fresh}


# --- the check ----------------------------------------------------------------------------


class Unsupported(Exception):
    """The target has no run-code operation."""


def run_program(dep: Deployment, agent: str, calls: list[SdkCall]) -> list[Any]:
    """One run-code program: a ToolResult per call, or the refusal (a TckError with a runtime's
    code) standing for every call. A broken conversation (a crash, a timeout) is raised: the
    check reports it as an error."""
    run_code = getattr(dep, "run_code", None)
    if run_code is None:
        raise Unsupported(f"{type(dep).__name__} has no run_code method")
    try:
        results = run_code(agent, calls)
    except TckError as exc:
        if exc.code in (ErrorCode.PROTOCOL_ERROR, ErrorCode.USAGE):
            if _unknown_operation(exc.message):
                raise Unsupported(exc.message) from exc
            raise
        if exc.code in (ErrorCode.TARGET_UNREACHABLE, ErrorCode.TIMEOUT):
            raise
        return [exc for _ in calls]
    if not isinstance(results, list) or len(results) != len(calls):
        got = f"{len(results)} result(s)" if isinstance(results, list) else repr(results)[:80]
        raise TckError(ErrorCode.PROTOCOL_ERROR, f"run-code answered {got} for {len(calls)} "
                       "call(s): one result per call, in order (docs/driver-api.md#run-code)")
    return results


def _unknown_operation(message: str) -> bool:
    """Whether a protocol error says the target has no such route (an older adapter)."""
    return any(w in message for w in ("HTTP 404", "HTTP 405", "no operation", "not a route")) \
        or ("AttributeError" in message and "run_code" in message)


def unknown_tool(answer: Any) -> bool:
    if isinstance(answer, TckError):
        return answer.code is ErrorCode.UNKNOWN_TOOL
    return isinstance(answer, ToolResult) and answer.isError and \
        answer.code == ErrorCode.UNKNOWN_TOOL.value


def shown(answer: Any) -> Any:
    return answer.to_json() if isinstance(answer, TckError) else answer.model_dump(mode="json")


def ran(dep: Deployment, since: int) -> tuple[list[list[Any]], int]:
    """The tool bodies (other than run_code's own) that ran since ``since``."""
    logged = dep.invocations()
    new = [[i.tool, Origin(i.origin).value, i.arguments] for i in logged[since:]
           if i.tool != RUN_CODE]
    return new, len(logged)


def build(ctx: CheckContext, state: dict[str, Any]) -> tuple[Deployment, str]:
    mode = state["mode"]
    dep = ctx.deploy(tools=state["globals"], mode=mode)
    agent = dep.root().agent
    with ctx.step(RULE, f"setting the presentation mode {mode.value}"):
        dep.set_mode(agent, mode)
    with ctx.step(RULE, f"registering the scope-local tools {state['locals']}"):
        for name in state["locals"]:
            dep.register_tool(ToolSpec(name=name, description=f"local {name}"), agent)
    for raw in state["restrictions"]:
        with ctx.step(RULE, f"installing the valid restriction {raw}"):
            dep.install_restriction(agent, raw)
    return dep, agent


def round_of_calls(ctx: CheckContext, dep: Deployment, agent: str, state: dict[str, Any],
                   names: list[str], when: str) -> None:
    """One run_code program calling ``names`` (bound and unbound alike), judged call by call
    against the scope's own view, and its invocations against the bound calls."""
    mode = state["mode"]
    entries = dep.view(agent)
    origins = {e.name: Origin(e.origin).value for e in entries}
    bound = sdk_binding_names([SpecEntry(e.name, Origin(e.origin)) for e in entries], mode)
    arguments = state["arguments"]
    _, mark = ran(dep, 0)
    answers = run_program(dep, agent, [SdkCall(name=n, arguments=arguments) for n in names])
    new, _ = ran(dep, mark)
    for name, answer in zip(names, answers, strict=True):
        if name in bound:
            ctx.expect(RULE, isinstance(answer, ToolResult) and not answer.isError,
                       f"run_code calling the bound {name!r} ({origins[name]}) in mode "
                       f"{mode.value} {when}", "its result, not an error", shown(answer))
        else:
            why = "visible but not bound" if name in origins else "not visible"
            ctx.expect(RULE, unknown_tool(answer),
                       f"run_code calling {name!r} ({why}) in mode {mode.value} {when}",
                       "an UNKNOWN_TOOL error", shown(answer))
    # Which bodies ran is TF-12's (execution comes from the view); what arguments reached them
    # is not, so an invocation is compared by tool and origin only.
    want = [[n, origins[n]] for n in names if n in bound]
    new = [r[:2] for r in new]
    strays = [r for r in new if r[0] not in bound]
    ctx.expect(RULE, new == want,
               f"the bodies a run_code program ran in mode {mode.value} {when}"
               + (f": {sorted({r[0] for r in strays})} ran although the SDK does not bind them"
                  if strays else ""),
               {"ran": want}, {"ran": new})


def first_round(state: dict[str, Any], known: list[str]) -> list[str]:
    """Every known name and the kin of each (another case, a prefix, an extension), a name
    never registered, and run_code itself."""
    kinship = strangers(known)
    return list(dict.fromkeys([*known, *kinship, state["fresh"], RUN_CODE]))


def change(ctx: CheckContext, dep: Deployment, agent: str, later: dict[str, Any],
           known: list[str]) -> str:
    (kind, name), = later.items()
    with ctx.step(RULE, f"changing the scope live: {kind} {name!r}"):
        if kind == "deny":
            dep.install_restriction(agent, {"deny": [name]})
        elif kind == "unregister":
            dep.unregister_tool(name)
        else:
            dep.register_tool(ToolSpec(name=name, description=f"tool {name}"))
            known.append(name)
    return f"after {kind} {name!r}"


def reach(ctx: CheckContext, state: dict[str, Any]) -> None:
    dep, agent = build(ctx, state)
    known = list(dict.fromkeys([*state["globals"], *state["locals"]]))
    try:
        round_of_calls(ctx, dep, agent, state, first_round(state, known), "as set up")
        when = change(ctx, dep, agent, state["later"], known)
        # again: the changed name, one name whose status did not change, and the fresh name
        (_, changed), = state["later"].items()
        others = [n for n in known if n != changed][:1]
        round_of_calls(ctx, dep, agent, state,
                       list(dict.fromkeys([changed, *others, state["fresh"]])), when)
    except Unsupported as exc:
        ctx.fail(RULE, "the target does not implement the run-code operation of driver "
                 "protocol 1.1, so whether run_code reaches exactly the visible tools cannot be "
                 f"shown ({exc}); implement it (docs/driver-api.md#run-code)",
                 "a run-code operation", str(exc), error=True)
        ctx.abort()


#: Hand-written cases that always run: a local shadowing a denied global, names that differ
#: only by case, an MCP-style name, prefixes, every mode, each kind of live change.
EXAMPLES: tuple[dict[str, Any], ...] = (
    {"globals": ["get_weather", "Get_Weather", "mcp__github__create_issue", "search"],
     "locals": ["get_weather", "lima_local"], "restrictions": [{"deny": ["get_weather",
     "Get_Weather"]}], "mode": PresentationMode.PTC,
     "arguments": {"city": "Zürich", "days": 3, "q": "\"`${x}`');"},
     "later": {"deny": "mcp__github__create_issue"}, "fresh": "get_weather_v2"},
    {"globals": ["a", "ab", "abc"], "locals": ["abc"], "restrictions": [{"allow": ["a", "ab"]}],
     "mode": PresentationMode.BOTH, "arguments": {"nested": {"list": [1, None, True]}},
     "later": {"unregister": "ab"}, "fresh": "abcd"},
    {"globals": ["alpha", "bravo"], "locals": ["bravo"], "restrictions": [],
     "mode": PresentationMode.NATIVE, "arguments": {}, "later": {"register": "charlie"},
     "fresh": "zulu"},
    {"globals": ["alpha", "bravo"], "locals": [], "restrictions": [{"allow": ["alpha"]}],
     "mode": PresentationMode.PTC, "arguments": {"n": MAX_SAFE},
     "later": {"register": "bravo2"}, "fresh": "名字_lookup"},
)


#: The partition each hand-written case is: its mode, and the live change between two rounds.
REACH = tuple(Partition(RULE, f"{e['mode'].value}-then-{next(iter(e['later']))}",
                        f"run_code in {e['mode'].value} mode, then the scope changed live: "
                        f"{next(iter(e['later']))} {next(iter(e['later'].values()))!r}")
              for e in EXAMPLES)


@check(RULE, name=NAME, per_provider=False, partitions=REACH)
def run_code_reach(ctx: CheckContext) -> None:
    """run_code executes exactly the tools its SDK binds, which are the visible tools other than
    run_code: each bound name runs the body of its view entry once, with the arguments sent;
    a hidden, unregistered or reserved name (any name in native mode) is UNKNOWN_TOOL and runs
    nothing; the bindings follow live changes."""
    for example, part in zip(EXAMPLES, REACH, strict=True):
        reach(ctx, example)
        ctx.drew(RULE, part.name)
    if ctx.failures:
        return  # a failing hand-written case decides the rule; shrinking a drawn one adds cost
    ctx.for_all(state_st(), lambda s: reach(ctx, s))


#: A code runtime may start a sandbox per program (DSH's worker-thread runtime: a fresh worker,
#: a few tenths of a second): about thirty programs may take longer than the run's --timeout.
REGISTRY[NAME] = dataclasses.replace(REGISTRY[NAME], timeout=120.0)
