"""A call of a ``subagent`` tool in lockstep (ST-06, ST-07, ST-08, ST-09; EN-03 for what the
tool's configured controls compose), and the caller's requests of that turn (FR-05).

``call_tool`` runs a turn of an agent whose model calls a visible tool once. The child the call
starts answers as the step says (``reply``):

- ``output``: its output with a drawn stop reason (``stop``);
- ``empty``: no text at all, with that stop reason (a completed run's output is the result,
  however empty: docs/rules.md#ST-09);
- ``silent``: no answer: every model call of the child fails (the gateway raises; over HTTP an
  error status the client is told not to retry), so the run cannot complete;
- ``stall``: the caller's turn is aborted while the child waits for its model, which never
  answers.

With ``abort`` the caller's turn is aborted while the child waits for its model, whose reply
then asks for a tool call: the child's run must stop there (ST-09). The callbacks are the
operation's, so the step stays data and replays.

Judged: refused at the cap with an errored result and no child (ST-06, ST-07,
:func:`subagent_tck.spec.decide_tool_call`), the start's own faults
(:func:`subagent_tck.spec.decide_start`: the tool's configured persona and toolFilter travel
in every start, docs/rules.md#EN-03), else a child that ran and was composed as the start
says (its first request's tools, and its persona: EN-03), an errored result exactly when it did
not complete, and the child gone once the call returned (ST-09). The caller's own first request
of the turn is compared whole (FR-05), and a notice is never repeated within a turn (ST-08).
"""

from __future__ import annotations

import copy
from typing import Any

from subagent_tck.conformance.core.gateway import call
from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest, StartRequest
from subagent_tck.spec import (
    PROVIDER_MANAGED,
    STRUCTURED_OUTPUT,
    Edition,
    ErrorCode,
    StartOutcome,
    StopReason,
    TckError,
    assemble_system_prompt,
    decide_tool_call,
    tool_cap,
)

from .lockstep import Lockstep
from .model import AgentModel
from .rulemap import fault_rule, refusal_rule
from .start_rules import runtime_rule
from .tool_model import LOAD_CONTROLS, Load, view_rule

#: How the child of a call answers (see the module).
REPLIES = ("output", "empty", "silent", "stall")
#: Model calls of a ``silent`` child that fail (a runtime that retries meets the same).
_SILENT_ANSWERS = 4


class NoAnswer(RuntimeError):
    """The scripted model does not answer (a ``silent`` or ``stall`` child)."""


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
    model = lock.subagent_tools
    if name in lock.model.globals and (model is None or name not in model.names):
        return f"global {name}"
    return None


def _request(lock: Lockstep, load: Load) -> dict[str, Any]:
    """The start a call of ``load`` makes: its provider, the prompt, a numeric cap and the
    controls it is configured with (docs/rules.md#ST-05, #EN-03)."""
    request: dict[str, Any] = {"provider": load.provider, "prompt": lock.setup.lexicon.prompt}
    if load.max_depth is not None and load.max_depth != PROVIDER_MANAGED:
        request["maxDepth"] = load.max_depth
    request.update(load.controls)
    return request


def _child_reply(lock: Lockstep, target: str, n: int, reply: str, stop: StopReason,
                 abort: bool) -> tuple[Any, ...]:
    """The scripted answers of the call's child (see :data:`REPLIES`; the gateway records a
    request its model did not answer as a failed exchange)."""
    if reply == "silent":
        def silent(request: ModelRequest) -> ModelReply:
            raise NoAnswer(f"the model gives child {n} no answer")
        return (silent,) * _SILENT_ANSWERS
    if reply == "stall":
        def stall(request: ModelRequest) -> ModelReply:
            lock.deployment.abort_turn(target)
            raise NoAnswer(f"the model of child {n} stalled until the call was aborted")
        return (stall,) * _SILENT_ANSWERS
    text = "" if reply == "empty" else f"child output {n}"
    if not abort:
        return (ModelReply(text=text, stopReason=stop),)

    def aborting(request: ModelRequest) -> ModelReply:
        lock.deployment.abort_turn(target)
        return call(f"fz_after_abort_{n}", {}, f"fz-child-call-{n}")
    return (aborting,)


def call_tool(lock: Lockstep, agent: str, name: str, stop: str = "completed",
              abort: bool = False, reply: str = "output") -> None:
    """A turn of ``agent`` that calls tool ``name`` once (only when ``agent``'s model is
    offered it; otherwise the step only reads the view); its child answers as ``reply`` says
    (see the module)."""
    model = lock.tool_model()
    caller = lock.agent(agent)
    if name not in lock.model.wire(caller) or name not in model.loads:
        lock.check_view(agent)
        return
    load = model.loads[name]
    reason = StopReason(stop)
    if reply not in REPLIES:
        raise TckError(ErrorCode.USAGE, f"a call's reply is one of {', '.join(REPLIES)}, not "
                       f"{reply!r}; the replay file is corrupt")
    abort = abort and reply in ("output", "empty")
    aborted = abort or reply == "stall"
    model.calls += 1
    n = model.calls
    cap = tool_cap(load.max_depth, model.host_depth)
    header = lock.model.sessions[caller.session].header
    at_cap = decide_tool_call(header, caller.runtime, cap)
    request = _request(lock, load)
    outcome = lock.model.decide_start(caller, request)
    refused = at_cap or not outcome.ok
    gateway = lock.gateway
    target = lock.agent_id(agent)
    child_marker = gateway.script(
        f"<<fz-child-{n}>>", *_child_reply(lock, target, n, reply, reason, abort),
        required=False)
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
                # the live host setting is ST-06's; the caller's durable depth, rewritten
                # under it, is the guard's (ST-07), as is a cap of the load's own
                rewritten = lock.model.sessions[caller.session].rewritten
                rule = "ST-06" if load.max_depth is None and not rewritten else "ST-07"
                why = f"at the cap {cap} ({source})"
            else:
                # a parent whose runtime depth replaced its deeper header started the child the
                # header forbids: DE-02's, however the refusal due is named
                probed = runtime_rule(lock, caller, request, None, _direct_depth(
                    lock, caller, request)) if children else None
                rule = probed or fault_rule(outcome.faults[0], request)
                why = outcome.faults[0].reason
                bare = {k: v for k, v in request.items() if k not in LOAD_CONTROLS}
                if (children and len(bare) < len(request)
                        and lock.setup.edition is Edition.REQUEST_CONTROLS
                        and lock.model.decide_start(caller, bare).ok
                        and _refused_directly(lock, caller, request)):
                    # the child ran as if the tool had not sent its controls: the same start
                    # made directly is refused (else the start itself is wrong: the fault's rule)
                    rule = "EN-03"
            raise lock.diverge("tool-call", f"a call of {name!r} by {agent} {why} must give "
                               "an errored tool result and start no child",
                               {"isError": True, "child ran": False}, observed, rule)
        lock.check_all_views()
        return
    if aborted and children:
        # its first request came before the abort: composed all the same
        _check_child(lock, caller, load, outcome, gateway.requests(children[0]))
        _check_aborted(lock, agent, name, children[0], message, result)
        return
    if outcome.persona_grammar and message is not None and message.isError and not children:
        # the persona's literal braces are the implementation's grammar: a start refusing
        # them is as right as one reading them as prose (docs/rules.md#PE-05)
        lock.check_all_views()
        return
    if message is None or not children:
        if result is not None and any(r.code == ErrorCode.UNKNOWN_TOOL.value
                                      for r in result.toolResults):
            # the tool was on the caller's wire (its own mode): lookup and schemas disagree
            raise lock.diverge(
                "tool-call", f"{name!r} is on the wire of {agent} (mode "
                f"{caller.scope.mode.value}): the model's call of it must not be "
                "refused as UNKNOWN_TOOL", {"child ran": True}, observed, "TF-12")
        rewritten = lock.model.sessions[caller.session].rewritten
        rule = _start_rule(lock, caller, request) or (
            "ST-06" if load.max_depth is None and not rewritten else "ST-05" if cap is None
            else "ST-07")
        raise lock.diverge("tool-call", f"a call of {name!r} by {agent} below the cap "
                           f"({source}: {cap}) must start the child", {"isError": reason
                           is not StopReason.COMPLETED, "child ran": True}, observed, rule)
    _check_child(lock, caller, load, outcome, gateway.requests(children[0]))
    completed = reason is StopReason.COMPLETED and reply in ("output", "empty")
    content = message.content if isinstance(message.content, str) else str(message.content)
    if message.isError == completed or (reply == "output" and completed
                                        and f"child output {n}" not in content):
        why = (f"stopped with {reason.value!r}" if reply != "silent"
               else "got no answer from its model")
        raise lock.diverge(
            "tool-call", f"a child that {why} must give "
            + ("its output as the result" + (", however empty" if reply == "empty" else "")
               if completed else "an errored result, not its partial output"),
            {"isError": not completed}, {"isError": message.isError, "content": content},
            "ST-09")
    live = set(lock._guard("agents", lock.deployment.agents))
    leaked = sorted(c for c in children if c in live and c not in set(lock.ids.values()))
    if leaked:
        raise lock.diverge("tool-call", "the tool's child run must be disposed once the call "
                           "returned", [], leaked, "ST-09")
    lock.check_all_views()


def _probe(lock: Lockstep, caller: AgentModel, request: dict[str, Any]) -> Any:
    """The start a tool call makes, made directly from its caller: its result, the refusal
    (a TckError), or None when the target broke otherwise (no evidence either way). Diagnosis
    only: the lockstep stops at the divergence being named, so the probe's child does not
    matter."""
    sent = StartRequest(parent=lock.agent_id(caller.label), **copy.deepcopy(request))
    try:
        return lock.deployment.start(sent)
    except TckError as exc:
        return exc
    except Exception:
        return None


def _direct_depth(lock: Lockstep, caller: AgentModel, request: dict[str, Any]) -> object:
    """The depth the probe's child gets (None when it is refused or says none)."""
    probed = _probe(lock, caller, request)
    return None if probed is None or isinstance(probed, TckError) else probed.depth


def _refused_directly(lock: Lockstep, caller: AgentModel, request: dict[str, Any]) -> bool:
    """Whether the probe is refused (no evidence counts as not refused: the tool's controls
    are not to blame)."""
    return isinstance(_probe(lock, caller, request), TckError)


def _start_rule(lock: Lockstep, caller: AgentModel, request: dict[str, Any]) -> str | None:
    """The start's own rule when the start a call below the cap makes, made directly, is
    refused too (an omitted cap given a default is DE-10's, not the tool's)."""
    probed = _probe(lock, caller, request)
    if not isinstance(probed, TckError):
        return None  # accepted, or no evidence: the tool's rule
    edition = lock.setup.edition is Edition.REQUEST_CONTROLS
    return refusal_rule(probed.code.value, request, edition)


def _check_child(lock: Lockstep, caller: AgentModel, load: Load, outcome: StartOutcome,
                 made: list[ModelRequest]) -> None:
    """The child's first request carries the composition the start gave it: the tools of
    its view, and its persona in place of the deployment's (the tool's configured persona and
    toolFilter compose every child it starts, docs/rules.md#EN-03; FR-01). The system text is
    judged by the persona it must and must not carry (a runtime may add sections of its own,
    docs/rules.md#FR-01), since the child is gone before its prompt could be read."""
    if not made:
        return  # it made no request: the call's own result is judged by the caller
    first = made[0]
    request = _request(lock, load)
    child, session = lock.model.compose_child(caller, outcome, f"{caller.label}.tool-child",
                                              request)
    wire = sorted(lock.model.wire(child))
    names = sorted(t.name for t in first.tools)
    configured = "toolFilter" in load.controls
    if names != wire:
        # a subagent tool missing from the child's view is ST-07's at the cap (ST-02's else)
        tools = lock.subagent_tools
        rule = None if tools is None else view_rule(
            tools, lock.model, child, set(names) ^ set(wire),
            {(n, "global") for n in names}, session.header)
        raise lock.diverge(
            "tool-child", "the first request of the child a tool call started lacks its final "
            "tools" + (" (the tool's configured toolFilter composes it)" if configured else ""),
            wire, names, rule or ("EN-03" if configured else "FR-01"))
    system = assemble_system_prompt(lock.model.prompt(child))
    if first.system == system:
        return
    own = child.persona
    base = lock.model.deployment_persona()
    others = "".join(s.text for s in lock.model.prompt(child) if s.text != own)
    missing = own is not None and own != "" and own not in first.system
    leaked = (own is not None and base is not None and base != "" and base in first.system
              and base not in own and base not in others)
    inherited = own is None and base is not None and base != "" and base not in first.system
    if missing or leaked or inherited:
        rule = "EN-03" if "persona" in load.controls else (
            "PE-03" if own == "" else "PE-02" if own is None else "PE-01")
        raise lock.diverge(
            "tool-child", "the first request of the child a tool call started carries another "
            "persona than its composition" + (" (the tool's configured persona)"
                                              if "persona" in load.controls else ""),
            {"persona": own, "deployment persona": base, "system": system},
            first.system, rule)


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
