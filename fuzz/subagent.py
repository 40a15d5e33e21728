"""The ``subagent`` tool's lifecycle in lockstep (ST-01..ST-07, ST-09), and its providers.

Operations (run on the target and the oracle, like :mod:`.operations`):

- ``load_tool`` / ``unload_tool``: a load bound to one provider, with ``maxDepth`` unset,
  ``'provider-managed'`` or a depth drawn as JSON text (judged by
  :func:`subagent_tck.spec.decide_tool_load`: ST-04, ST-05). A mounted load is a global tool of
  the registry (restrictions, views, schemas and first requests see it like any global).
- ``remove_provider`` / ``add_provider``: a provider the target ships leaves and comes back;
  every load bound to it disappears and reappears (ST-02), starts on it are ``NO_PROVIDER``
  (CA-05) and a resume of a child started on it is ``NOT_RESUMABLE`` (FR-04).
- ``set_host_depth``: the live host depth setting a load without ``maxDepth`` uses (ST-06).
- ``call_tool``: a turn of an agent whose model calls a visible tool once; the child replies
  with a drawn stop reason. Judged: refused at the cap with an errored result and no child
  (ST-06, ST-07, :func:`subagent_tck.spec.decide_tool_call`), the start's own faults
  (:func:`subagent_tck.spec.decide_start`), else a child that ran, an errored result exactly
  when it did not complete, and the child gone once the call returned (ST-09). The caller's
  own first request of the turn is compared whole: system prompt and every tool schema's
  name and, for the kit's tools, description (FR-05).
- ``rebind``: a stored child descriptor rewritten to name another provider, then resumed:
  its persona / toolFilter / outputSchema must be gated on that provider (CA-01).

After every change the schemas of a mounted tool are read: exactly ``description`` and
``prompt`` (ST-01), wording that matches the provider's ``inheritsParentContext`` by the
certifier's cues, and the same wording again after a re-mount (ST-02, ST-03).

A call with ``abort`` aborts the caller's turn from inside the child's model call (the callback
is the operation's, so the step stays data and replays): the child must stop there (ST-09).
Within a turn a context notice is never appended again (ST-08).

**What the oracle cannot say** (left to ``certify``): the at-cap notice beyond its repetition
within a turn (ST-08: its wording, and when one is due, are the runtime's), what an aborted
caller does next, and the exact text of the wording (ST-03 is judged by cues, as the certifier
judges it). A load bound to a provider name
the target does not ship is never drawn: the rules do not say when that must fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.core.gateway import call
from subagent_tck.conformance.core.protocol import (
    ModelReply,
    ModelRequest,
    SubagentToolConfig,
)
from subagent_tck.spec import (
    PROVIDER_MANAGED,
    STRUCTURED_OUTPUT,
    ErrorCode,
    StopReason,
    assemble_system_prompt,
    decide_tool_call,
    decide_tool_load,
    mounts,
    tool_cap,
)

from .children import resume
from .lockstep import Lockstep
from .model import AgentModel
from .rulemap import fault_rule
from .strategies import depth_value, is_well_formed
from .tool_model import TOOL_NAMES, Load, ToolModel


def tools(lock: Lockstep) -> ToolModel:
    """The component's model of this lockstep (made on first use)."""
    return lock.tool_model()


def _sync(lock: Lockstep, model: ToolModel) -> None:
    """Mounted loads are globals of the model's registry, nothing else is."""
    for name in TOOL_NAMES:
        live = model.mounted(name)
        if live and name not in lock.model.globals:
            lock.model.register_global(name)
        elif not live and name in lock.model.globals:
            lock.model.unregister_global(name)
    providers = lock.model.providers
    assert isinstance(providers, dict)
    for name, caps in model.capabilities.items():
        if name in model.present:
            providers[name] = caps
        else:
            providers.pop(name, None)


def _max_depth(arg: object) -> object:
    if isinstance(arg, Mapping) and "json" in arg:
        return depth_value(str(arg["json"]))
    return arg  # None or PROVIDER_MANAGED


# --- load and unload ---------------------------------------------------------------------


def load_tool(lock: Lockstep, name: str, provider: str, max_depth: object = None) -> None:
    model = tools(lock)
    value = _max_depth(max_depth)
    verdict = decide_tool_load(name, value, model.loads, model.caps_of(provider))
    codes = set(verdict.codes)
    if isinstance(max_depth, Mapping) and not is_well_formed(str(max_depth["json"])):
        codes.add(ErrorCode.INVALID_REQUEST)  # over a JSON wire the request is malformed
    before = lock.snapshot() if codes else None
    config = SubagentToolConfig(provider=provider, toolName=name, maxDepth=value)
    _, error = lock.call("load_subagent_tool",
                         lambda: lock.deployment.load_subagent_tool(config))
    rule = "ST-04" if ErrorCode.DUPLICATE_TOOL_NAME in verdict.codes else "ST-05"
    if lock.check_outcome("tool-load", frozenset(codes), False, error, rule, verdict.reason):
        model.loads[name] = Load(provider, value)
    elif before is not None:
        lock.unchanged(before, "nothing-changed", rule)
        if ErrorCode.DUPLICATE_TOOL_NAME in verdict.codes and model.mounted(name):
            # refused for any of its faults, a second load of a name leaves the first one
            # loaded (docs/rules.md#ST-04): a refusal that took the first one away is ST-04's
            shown = {e.name for e in lock._guard("view", lambda: lock.deployment.view(None))}
            if name not in shown:
                raise lock.diverge("tool-load", f"a refused second load of {name!r} removed "
                                   "the first one", [name], sorted(shown), "ST-04")
    _sync(lock, model)
    lock.check_all_views()


def unload_tool(lock: Lockstep, name: str) -> None:
    model = tools(lock)
    _, error = lock.call("unload_subagent_tool",
                         lambda: lock.deployment.unload_subagent_tool(name))
    loaded = name in model.loads
    lock.check_outcome("tool-unload", frozenset() if loaded else frozenset(
        {ErrorCode.UNKNOWN_TOOL}), not loaded, error, "ST-04")
    model.loads.pop(name, None)
    model.wording.pop(name, None)  # a new load derives its wording afresh
    _sync(lock, model)
    lock.check_all_views()


# --- providers and the host depth --------------------------------------------------------


def remove_provider(lock: Lockstep, provider: str) -> None:
    model = tools(lock)
    if provider not in model.present:
        return  # only a registered provider is removed (the rules say nothing of the rest)
    _, error = lock.call("remove_provider", lambda: lock.deployment.remove_provider(provider))
    lock.check_outcome("provider", frozenset(), False, error, "ST-02")
    model.present.discard(provider)
    _sync(lock, model)
    lock.check_all_views()


def add_provider(lock: Lockstep, provider: str) -> None:
    model = tools(lock)
    if provider in model.present or provider not in model.capabilities:
        return
    # a load whose numeric cap the provider cannot honour may refuse the mount loudly
    refusing = any(
        load.provider == provider and not mounts(load.max_depth, model.capabilities[provider])
        for load in model.loads.values()
    )
    _, error = lock.call("add_provider", lambda: lock.deployment.add_provider(provider))
    codes = frozenset({ErrorCode.UNSUPPORTED_CAPABILITY}) if refusing else frozenset()
    lock.check_outcome("provider", codes, refusing, error, "ST-05" if refusing else "ST-02")
    if error is None:
        model.present.add(provider)
    else:  # refused loudly: whether the provider stayed registered is the target's choice
        listed = {p.name for p in lock._guard("providers", lock.deployment.providers)}
        if provider in listed:
            model.present.add(provider)
    _sync(lock, model)
    lock.check_all_views()


def set_host_depth(lock: Lockstep, depth: int) -> None:
    model = tools(lock)
    _, error = lock.call("set_host_depth", lambda: lock.deployment.set_host_depth(depth))
    lock.check_outcome("host-depth", frozenset(), False, error, "ST-06")
    model.host_depth = depth


# --- a call --------------------------------------------------------------------------------


def _caller_request_rule(lock: Lockstep, agent: AgentModel, request: ModelRequest) -> None:
    """FR-05: a later request of an agent carries its composition now: the system prompt
    and the schemas of its wire tools (the kit's own tools with the descriptions they were
    registered with)."""
    wanted = sorted(lock.model.wire(agent))
    names = sorted(t.name for t in request.tools)
    if names != wanted:
        lock.check_view(agent.label)  # a wrong view or presentation has its own rule
        lock.check_schemas(agent.label)
        raise lock.diverge("turn-request", f"the request of {agent.label}'s turn lacks its "
                           "current tools", wanted, names, "FR-05")
    for schema in request.tools:
        expected = _kit_description(lock, agent, schema.name)
        if expected is not None and schema.description != expected:
            raise lock.diverge(
                "turn-request", f"the request of {agent.label}'s turn describes "
                f"{schema.name!r} as another tool", expected, schema.description,
                "TF-05" if schema.name in agent.scope.locals else "FR-05",
            )
    system = assemble_system_prompt(lock.model.prompt(agent))
    if not lock.system_agrees(agent, lock.agent_id(agent.label), request.system):
        rule = "FR-05"
        if "{{" in request.system and "{{" not in system:
            rule = "PE-05"  # a raw placeholder reached the model
        else:
            target = lock.agent_id(agent.label)
            shown = [[s.name, s.text] for s in lock._guard(
                "prompt", lambda: lock.deployment.prompt(target))]
            sections = [[s.name, s.text] for s in lock.model.prompt(agent)]
            if lock.model.kit_sections(shown) != sections:  # the prompt is wrong: its rule
                rule = lock.prompt_rule(agent.label, sections, shown)
        raise lock.diverge("turn-request", f"the request of {agent.label}'s turn carried "
                           "another system text than its prompt", system, request.system,
                           rule)


def _kit_description(lock: Lockstep, agent: AgentModel, name: str) -> str | None:
    """The description the fuzzer registered ``name`` with, as ``agent`` resolves it (None:
    a tool of the target's own, whose description is the target's)."""
    if name in agent.scope.locals and name != STRUCTURED_OUTPUT:
        return f"local {name} of {agent.label}"
    if name in lock.model.globals and name not in TOOL_NAMES:
        return f"global {name}"
    return None


def call_tool(lock: Lockstep, agent: str, name: str, stop: str = "completed",
              abort: bool = False) -> None:
    """A turn of ``agent`` that calls tool ``name`` once (only when ``agent``'s model is
    offered it; otherwise the step only reads the view). With ``abort`` the caller's turn is
    aborted while the child waits for its model, whose reply then asks for a tool call: the
    child's run must stop there (ST-09)."""
    model = tools(lock)
    caller = lock.agent(agent)
    if name not in lock.model.wire(caller) or name not in model.loads:
        lock.check_view(agent)
        return
    load = model.loads[name]
    reason = StopReason(stop)
    model.calls += 1
    n = model.calls
    cap = tool_cap(load.max_depth, model.host_depth)
    header = lock.model.sessions[caller.session].header
    at_cap = decide_tool_call(header, caller.runtime, cap)
    request: dict[str, Any] = {"provider": load.provider, "prompt": lock.setup.lexicon.prompt}
    if load.max_depth is not None and load.max_depth != PROVIDER_MANAGED:
        request["maxDepth"] = load.max_depth
    outcome = lock.model.decide_start(caller, request)
    refused = at_cap or not outcome.ok
    gateway = lock.gateway
    target = lock.agent_id(agent)
    reply: Any = ModelReply(text=f"child output {n}", stopReason=reason)
    if abort:
        def aborting(request: ModelRequest) -> ModelReply:
            lock.deployment.abort_turn(target)
            return call(f"fz_after_abort_{n}", {}, f"fz-child-call-{n}")
        reply = aborting
    child_marker = gateway.script(f"<<fz-child-{n}>>", reply, required=False)
    call_id = f"fz-call-{n}"
    # the gateway binds an agent to the first marker it saw: one marker per caller, refilled
    marker = model.callers.setdefault(agent, f"<<fz-caller-{n}>>")
    caller_marker = gateway.script(marker, call(name, {
        "description": "a delegated task", "prompt": f"{child_marker} do the task"}, call_id),
        required=False)
    seen = len(gateway.requests(target))
    result, error = lock.call("run_turn", lambda: lock.deployment.run_turn(
        target, f"{caller_marker} go on"))
    if error is not None:
        raise lock.diverge("tool-call", f"the turn of {agent} failed: {error.message}",
                           "a finished turn", error.to_json(), "ST-09")
    requests = gateway.requests(target)[seen:]
    if requests:
        _caller_request_rule(lock, caller, requests[0])
        lock.check_models(caller, requests, "MO-02")
    check_notices(lock, agent, requests)
    found = [m for r in requests for m in r.messages if m.role == "tool"
             and m.toolCallId == call_id]
    message = found[0] if found else None
    children = gateway.agents_for(child_marker)
    observed = {"isError": None if message is None else message.isError,
                "child ran": bool(children)}
    source = "the host depth setting" if load.max_depth is None else f"maxDepth {load.max_depth!r}"
    if refused:
        if message is None or not message.isError or children:
            if at_cap:
                rule = "ST-06" if load.max_depth is None else "ST-07"
                why = f"at the cap {cap} ({source})"
            else:
                rule = fault_rule(outcome.faults[0], request)
                why = outcome.faults[0].reason
            raise lock.diverge("tool-call", f"a call of {name!r} by {agent} {why} must give "
                               "an errored tool result and start no child",
                               {"isError": True, "child ran": False}, observed, rule)
        lock.check_all_views()
        return
    if abort and children:
        _check_aborted(lock, agent, name, children[0], message, result)
        return
    if message is None or not children:
        rule = ("ST-06" if load.max_depth is None else "ST-05" if cap is None else "ST-07")
        raise lock.diverge("tool-call", f"a call of {name!r} by {agent} below the cap "
                           f"({source}: {cap}) must start the child", {"isError": reason
                           is not StopReason.COMPLETED, "child ran": True}, observed, rule)
    completed = reason is StopReason.COMPLETED
    content = message.content if isinstance(message.content, str) else str(message.content)
    if message.isError == completed or (completed and f"child output {n}" not in content):
        raise lock.diverge(
            "tool-call", f"a child that stopped with {reason.value!r} must give "
            + ("its output as the result" if completed else "an errored result, not its "
               "partial output"), {"isError": not completed}, {"isError": message.isError,
                                                                "content": content}, "ST-09")
    live = set(lock._guard("agents", lock.deployment.agents))
    leaked = sorted(c for c in children if c in live and c not in set(lock.ids.values()))
    if leaked:
        raise lock.diverge("tool-call", "the tool's child run must be disposed once the call "
                           "returned", [], leaked, "ST-09")
    lock.check_all_views()


def check_notices(lock: Lockstep, agent: str, requests: list[ModelRequest]) -> None:
    """ST-08: within one turn the cap and the depth do not change, so a context notice that
    an earlier request of the turn carried must not be appended again. (What a notice says,
    and when one is due, is the runtime's wording and is left to certify's fixed case.)"""
    told: set[str] = set()
    for number, request in enumerate(requests, 1):
        again = [text for text in request.context if text in told]
        if again:
            raise lock.diverge(
                "notice", f"request {number} of {agent}'s turn repeats a notice an earlier "
                "request of the turn carried, while the cap and depth are unchanged",
                [], again, "ST-08")
        told.update(request.context)


def _check_aborted(lock: Lockstep, agent: str, name: str, child: str,
                   message: Any, result: Any) -> None:
    """ST-09's abort path: the caller's turn was aborted while the child waited for its
    model; the child must make no further request or tool call, every result of the call is
    errored, and the child is disposed of once the call returned."""
    went_on = len(lock.gateway.requests(child)) - 1
    ran = [i.tool for i in lock._guard("invocations", lock.deployment.invocations)
           if i.agent == child]
    results = [] if result is None else [r.isError for r in result.toolResults]
    if message is not None:
        results.append(message.isError)
    live = set(lock._guard("agents", lock.deployment.agents))
    leaked = child in live and child not in set(lock.ids.values())
    if went_on or ran or not all(results) or leaked:
        raise lock.diverge(
            "abort", f"aborting {agent}'s turn while its {name!r} call's child waited for its "
            "model must cancel the child: no further request or tool call, an errored result, "
            "the child disposed of", {"child requests after abort": 0, "tool calls": [],
                                      "isError": True, "child live after": False},
            {"child requests after abort": went_on, "tool calls": ran,
             "isError": results, "child live after": leaked}, "ST-09")
    lock.check_all_views()


# --- a descriptor bound to another provider ------------------------------------------------


def rebind(lock: Lockstep, session: str, provider: str, label: str | None = None) -> None:
    """Rewrite a child session's stored descriptor to name ``provider``, then resume it."""

    sid = lock.session_id(session)
    stored = lock.model.sessions[session]
    found = {h.session: h for h in lock._guard("sessions", lock.deployment.sessions)}
    header = found.get(sid)
    if header is None or not header.descriptor or "provider" not in header.descriptor or (
            not stored.composed):
        return  # not a descriptor in the wire-named form: not judged (as certify does)
    descriptor = {**header.descriptor, "provider": provider}
    _, error = lock.call("put_session_header", lambda: lock.deployment.put_session_header(
        header.model_copy(update={"descriptor": descriptor})))
    if error is not None:
        raise lock.diverge("resume", "put_session_header must store any descriptor",
                           "stored", error.to_json(), "CA-01")
    lock.changed()
    stored.provider = provider
    resume(lock, session, label)
