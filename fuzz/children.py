"""Operations on agents, children and sessions: the depth entries and the start pipeline.

Every depth enters here as raw JSON text (``{"json": "9007199254740993"}``) and reaches the
target as :func:`.strategies.depth_value` of it: ``create_agent`` (header and runtime depth,
DE-06, DE-07), ``start`` (``maxDepth``, DE-03, DE-05, DE-08, DE-10), and ``plant`` (a stored
header written with ``put_session_header`` and then resumed, DE-06, DE-09). A start is judged
by :func:`subagent_tck.spec.decide_start`: refused with one of its codes and nothing created
(DE-04, CA-02, FR-03), or accepted with the derived depth (DE-01, DE-02), a published snapshot
that is already final (FR-02) and a first model request that carries the whole composition
(FR-01, PE-01..PE-04, EN-01, EN-03).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from subagent_tck.conformance.core.gateway import call, text
from subagent_tck.conformance.core.protocol import (
    ModelReply,
    ModelRequest,
    SessionHeader,
    StartRequest,
    ToolSpec,
    snapshot_of,
)
from subagent_tck.spec import (
    ABSENT,
    PERSONA_SECTION,
    RUN_CODE,
    Edition,
    ErrorCode,
    Fault,
    TckError,
    assemble_system_prompt,
    check_depth,
    decide_start,
    validate_restriction,
)

from .lockstep import Lockstep
from .model import AgentModel, Expect, ScopeModel, SessionModel
from .rulemap import fault_rule, order_rule, refusal_rule
from .strategies import depth_value, is_well_formed

_DEPTH_CODES = frozenset({ErrorCode.INVALID_DEPTH, ErrorCode.DEPTH_EXCEEDED})


def _value(arg: Mapping[str, str]) -> object:
    return depth_value(arg["json"])


def create_agent(
    lock: Lockstep, header: Mapping[str, str], runtime: Mapping[str, str] | None,
    label: str | None = None,
) -> None:
    header_value = _value(header)
    runtime_value = ABSENT if runtime is None else _value(runtime)
    expect = lock.model.expect_create_agent(header_value, runtime_value)
    malformed = not is_well_formed(header["json"]) or (
        runtime is not None and not is_well_formed(runtime["json"]))
    before = lock.snapshot_later() if expect.may_accept else None
    lock.expect([("observe", {}), *lock.all_views_reads()])
    ref, error = lock.call("create_agent", lambda: lock.deployment.create_agent(
        header_depth=header_value,
        runtime_depth=None if runtime_value is ABSENT else runtime_value,
        has_runtime_depth=runtime_value is not ABSENT,
    ))
    rule = "DE-06" if not check_depth(header_value).ok else "DE-07"
    if error is not None:
        allowed = {ErrorCode.INVALID_DEPTH, *([ErrorCode.INVALID_REQUEST] if malformed else [])}
        if not expect.may_accept or error.code not in allowed:
            raise lock.diverge(
                "create-agent", f"create_agent refused: {error.message}", "accepted",
                error.to_json(), rule if expect.may_accept else "DE-01",
            )
        assert before is not None
        lock.unchanged(before(), "nothing-created", rule)
        return
    assert ref is not None
    verdict = check_depth(header_value)
    runtime_verdict = check_depth(runtime_value) if runtime_value is not ABSENT else None
    # AgentRef.depth is the header's depth (DE-01) or the effective one (DE-02: the larger of
    # header and runtime depth): the protocol accepts either
    allowed_depths = {verdict.value}
    if verdict.ok and runtime_verdict is not None and runtime_verdict.ok:
        allowed_depths.add(max(verdict.value, runtime_verdict.value))  # type: ignore[type-var]
    if verdict.ok and ref.depth not in allowed_depths:
        raise lock.diverge(
            "create-agent", "a top-level agent reports the depth of its header (or its "
            "effective depth)", sorted(allowed_depths), ref.depth, "DE-01",
        )
    label = label or lock.model.new_label("a")
    lock.ids[label] = ref.agent
    lock.session_ids[label] = ref.session
    agent = AgentModel(label, label, ScopeModel(mode=lock.setup.mode), runtime=runtime_value,
                       kind="created", model=lock.model.root_model)
    lock.model.add_agent(agent, SessionModel(label, header_value))
    lock.check_all_views()


def _nothing_created_rule(fault: Fault) -> str:
    if fault.code in _DEPTH_CODES:
        return "DE-04"
    if fault.code is ErrorCode.UNSUPPORTED_CAPABILITY:
        return "CA-02"
    if fault.code is ErrorCode.NO_PROVIDER:
        return "CA-05"
    if fault.code is ErrorCode.REQUEST_CONTROLS_REFUSED:
        return "EN-02"
    if fault.code in (ErrorCode.SPAWN_DENIED, ErrorCode.INVALID_SPAWN_POLICY):
        return "SP-01"
    return "FR-03"


def start(
    lock: Lockstep, parent: str, provider: str, controls: Mapping[str, Any],
    label: str | None = None, change: Mapping[str, str] | None = None,
) -> None:
    """Start a child. With ``change`` (``{"register": name}`` or ``{"unregister": name}``)
    the child's model, at its first request, changes the global registry and asks for a tool
    call, so that the child makes a second request in the same turn: that request must carry
    the registry as it is now (FR-05 within one turn)."""
    parent_model = lock.agent(parent)
    prompt = lock.setup.lexicon.prompt
    request: dict[str, Any] = {"provider": provider, "prompt": prompt}
    midturn: MidTurn | None = None
    if change:
        midturn = MidTurn(lock, dict(change))
        request["prompt"] = f"{prompt} {midturn.marker}"
    for key, value in controls.items():
        request[key] = _value(value) if key == "maxDepth" else copy.deepcopy(value)
    outcome = lock.model.decide_start(parent_model, request)
    if "maxDepth" in controls and not is_well_formed(controls["maxDepth"]["json"]):
        # over a JSON wire the request itself is malformed: any refusal as INVALID_REQUEST too
        faults = (*outcome.faults, Fault(ErrorCode.INVALID_REQUEST, "malformed JSON request"))
        outcome = replace(outcome, faults=faults)
    before = lock.snapshot_later()
    if midturn is None:  # (a mid-turn change is a change of its own, made during the start)
        lock.expect([("observe", {}), ("sessions", {}), ("agents", {}), ("events", {}),
                     *lock.all_views_reads(), ("prompt", {"agent": lock.agent_id(parent)})])
    sent = StartRequest(parent=lock.agent_id(parent), **copy.deepcopy(request))
    result, error = lock.call("start", lambda: lock.deployment.start(sent))
    controls_edition = lock.setup.edition is Edition.REQUEST_CONTROLS
    if error is None and not outcome.ok:
        wanted = sorted(c.value for c in outcome.codes)
        raise lock.diverge(
            "start", f"the start was accepted; expected a refusal with {' or '.join(wanted)} "
            f"({outcome.faults[0].reason})", wanted, jsonable_result(result),
            _fallback_rule(lock, request, result)
            or _unvalidated_rule(lock, parent_model, request, result, outcome.faults[0].code)
            or runtime_rule(lock, parent_model, request, None, getattr(result, "depth", None))
            or _composition_rule(lock, request, outcome.faults[0].code)
            or fault_rule(outcome.faults[0], request),
        )
    if error is not None:
        if outcome.ok and runtime_rule(lock, parent_model, request, error.code):
            raise lock.diverge(
                "start", f"the start was refused with {error.code.value}: {error.message}; "
                "expected it to be accepted (the parent's effective depth is the larger of its "
                "header and runtime depths)", "accepted", error.to_json(), "DE-02")
        if controls_edition and "preset" in request and error.code is ErrorCode.UNKNOWN_PRESET:
            # the request-controls edition defines no preset field (docs/rules.md#EN-03): a
            # target may refuse one (DSH does), and then nothing may change
            lock.unchanged(before(), "nothing-created", None)
            lock.check_all_views()
            return
        _refused(lock, parent_model, outcome, error, request, controls_edition, before())
        return
    assert result is not None and outcome.child_depth is not None
    if result.depth != outcome.child_depth:
        runtime = parent_model.runtime
        deeper = runtime is not ABSENT and check_depth(runtime).ok
        raise lock.diverge(
            "start-depth", "the child's depth is its parent's effective depth plus one",
            outcome.child_depth, result.depth, "DE-02" if deeper else "DE-01",
        )
    label = label or lock.model.new_label("c")
    child = lock.model.add_child(parent_model, outcome, label, request)
    lock.ids[label] = result.agent
    lock.session_ids[label] = result.session
    _check_child_header(lock, label, parent, outcome.child_depth)
    published = result.agent in lock._guard("agents", lock.deployment.agents)
    if not published:  # the target retires a child after its run: keep only its session
        lock.model.agents.pop(label, None)
        lock.model.sessions[label].agent = None
    if midturn is not None:  # the first request and the snapshot came before the change
        _check_snapshot(lock, child, result.agent)
        _check_first_request(lock, child, result.agent, published)
        midturn.judge(child, result.agent)
    lock.check_all_views()
    if midturn is None:
        _check_snapshot(lock, child, result.agent)
        _check_first_request(lock, child, result.agent, published)
    lock.check_prompt(parent)  # PE-01: the parent's prompt is unchanged


_COMPOSITION_CODES = frozenset({ErrorCode.INVALID_TEMPLATE, ErrorCode.INVALID_TOOL_FILTER})


class MidTurn:
    """A registry change made by a child's model at its first request (see :func:`start`)."""

    def __init__(self, lock: Lockstep, change: dict[str, str]) -> None:
        self.lock = lock
        [(self.kind, self.name)] = change.items()
        if self.kind not in ("register", "unregister"):
            raise TckError(ErrorCode.USAGE, f"a start's change is register or unregister, "
                           f"not {self.kind!r}; the replay file is corrupt")
        n = len(lock.steps)
        self.error: TckError | None = None
        self.fired = False
        self.marker = lock.gateway.script(
            f"<<fz-midturn-{n}>>", self._change, text(f"child done {n}"), required=False)

    def _change(self, request: ModelRequest) -> ModelReply:
        self.fired = True
        deployment = self.lock.deployment
        try:
            if self.kind == "register":
                spec = ToolSpec(name=self.name, description=f"global {self.name}")
                deployment.register_tool(spec, None)
            else:
                deployment.unregister_tool(self.name, None)
        except TckError as exc:
            self.error = exc
        return call(f"fz_midturn_probe_{len(self.lock.steps)}", {}, "fz-midturn-call")

    def judge(self, child: AgentModel, agent_id: str) -> None:
        lock, model = self.lock, self.lock.model
        # the gateway bound the child to this marker: its later turns are scripted by it
        lock.tool_model().callers[child.label] = self.marker
        if not self.fired:
            raise lock.diverge("turn-request", f"the child {child.label} made no model request",
                               "one request or more", [], "FR-01")
        if self.kind == "register":
            expect = model.expect_register_global(self.name)
            if lock.check_outcome("register-global", expect.codes, expect.may_accept,
                                  self.error, "TF-06" if self.name == RUN_CODE else None,
                                  expect.reason):
                model.register_global(self.name)
        else:
            expect = model.expect_unregister_global(self.name)
            lock.check_outcome("unregister-global", expect.codes, expect.may_accept,
                               self.error, "TF-11", expect.reason)
            if self.name in model.globals:
                model.unregister_global(self.name)
        lock.changed()
        later = lock.gateway.requests(agent_id)[1:]
        if not later:
            raise lock.diverge(
                "turn-request", f"{child.label} asked for a tool call and got its result, but "
                "made no further request in its turn", "a second request", [], "FR-05")
        lock.check_models(child, later, "MO-02")
        wire = sorted(model.wire(child))
        system = assemble_system_prompt(model.prompt(child))
        for number, request in enumerate(later, 2):
            names = sorted(t.name for t in request.tools)
            if names != wire or not lock.system_agrees(child, agent_id, request.system):
                raise lock.diverge(
                    "turn-request", f"request {number} of {child.label}'s turn, after the "
                    f"global {self.name!r} was {self.kind}ed during the turn, must carry the "
                    "registry as it is now", {"tools": wire, "system": system},
                    {"tools": names, "system": request.system}, "FR-05")


def _unvalidated_rule(lock: Lockstep, parent: AgentModel, request: Mapping[str, Any],
                      result: Any, code: ErrorCode) -> str | None:
    """EN-03 when a start whose request-controls toolFilter must be refused was accepted and
    the target refuses the same value as a restriction: its restriction path validates, the
    start never gave the request's filter to it. (Diagnosis only: the lockstep stops at this
    divergence, so the restriction the probe may install does not matter.)"""
    value = request.get("toolFilter")
    if (code is not ErrorCode.INVALID_TOOL_FILTER or value is None
            or lock.setup.edition is not Edition.REQUEST_CONTROLS or result is None):
        return None
    named = {n for k in ("allow", "deny") if isinstance(value, Mapping)
             for n in (value.get(k) or ()) if isinstance(n, str)}
    applied = validate_restriction(value, named).restriction
    if named and applied is not None and named <= {e.name for e in lock.model.view(parent)}:
        # every name is one the parent sees: a start that validated the filter over the
        # parent's view and applied it broke TF-08, not EN-03
        try:
            shown = lock.deployment.view(result.agent)
        except Exception:  # the child may be retired already: no evidence, no diagnosis
            return None
        if all(applied.admits(e.name) for e in shown if e.name in lock.model.globals):
            return None
    try:
        lock.deployment.install_restriction(result.agent, copy.deepcopy(request["toolFilter"]))
    except TckError as exc:
        return "EN-03" if exc.code is ErrorCode.INVALID_TOOL_FILTER else None
    except Exception:  # the child may be retired already: no evidence, no diagnosis
        return None
    return None


def runtime_rule(
    lock: Lockstep, parent: AgentModel, request: Mapping[str, Any], refused: ErrorCode | None,
    depth: object = None,
) -> str | None:
    """DE-02 when the target decided the start as if the parent's runtime depth replaced its
    (deeper) header depth: the outcome with the header set to the runtime depth is what it
    showed (accepted when ``refused`` is None, at the child ``depth`` that outcome derives
    when the target said one, else refused with that code). A child accepted at another depth
    was not decided from the runtime depth alone (docs/rules.md#DE-02): one accepted at 2^53
    where INVALID_DEPTH was due is DE-08's."""
    state = lock.model.start_state(parent)
    header, runtime = check_depth(state.parent_header_depth), check_depth(parent.runtime)
    if parent.runtime is ABSENT or not (header.ok and runtime.ok) or (
            runtime.value >= header.value):  # type: ignore[operator]
        return None
    alone = decide_start(replace(state, parent_header_depth=parent.runtime,
                                 parent_runtime_depth=ABSENT), request)
    if refused is None:
        return "DE-02" if alone.ok and depth in (None, alone.child_depth) else None
    return "DE-02" if not alone.ok and refused in alone.codes else None


def _composition_rule(
    lock: Lockstep, request: Mapping[str, Any], code: ErrorCode
) -> str | None:
    """For a persona or filter refusal that one side saw and the other did not: EN-03 when the
    request's own persona/toolFilter meet a preset's (in request-controls the request's value
    wins); PE-02 when the persona could only come from the preset."""
    presets = lock.model.presets
    preset = presets.get(str(request.get("preset"))) if "preset" in request else None
    if preset is None or code not in _COMPOSITION_CODES:
        return None
    overlap = (request.get("persona") is not None and preset.persona is not None) or (
        request.get("toolFilter") is not None and preset.tool_filter is not None)
    if overlap and lock.setup.edition is Edition.REQUEST_CONTROLS:
        return "EN-03"
    if code is ErrorCode.INVALID_TEMPLATE and request.get("persona") is None and (
            preset.persona is not None):
        return "PE-02"
    return None


def _fallback_rule(lock: Lockstep, request: Mapping[str, Any], result: Any) -> str | None:
    """EN-01 when a start with a preset was accepted although that preset cannot compose it,
    and the child carries another preset's persona: the target composed it from the wrong
    preset (a lookup that fell back), not from a preset it failed to check."""
    name = request.get("preset")
    if not isinstance(name, str) or result is None or request.get("persona") is not None:
        return None
    try:
        shown = {s.name: s.text for s in lock.deployment.prompt(result.agent)}.get(
            PERSONA_SECTION)
    except Exception:  # the child may be retired already: no evidence, no diagnosis
        return None
    return "EN-01" if lock.another_presets_persona(name, shown) else None


def jsonable_result(result: object) -> object:
    dump = getattr(result, "model_dump", None)
    return dump(mode="json") if dump is not None else result


def _other_preset_rule(
    lock: Lockstep, parent: AgentModel, request: Mapping[str, Any], error: TckError
) -> str | None:
    """EN-01 when a start naming a preset that composes was refused for a name only another
    preset mentions (a tool its filter lists, a variable its persona uses), with the code that
    preset's start is refused with: the target looked the other preset up (a lookup that fell
    back), not its own."""
    presets = lock.model.presets
    name = request.get("preset")
    code = error.code
    if not isinstance(name, str) or name not in presets or code not in _COMPOSITION_CODES:
        return None
    own = _mentioned(presets[name].persona, presets[name].tool_filter) | _mentioned(
        request.get("persona"), request.get("toolFilter"))
    for other, preset in presets.items():
        only = _mentioned(preset.persona, preset.tool_filter) - own
        if other != name and any(_names_in(error, n) for n in only) and code in (
                lock.model.decide_start(parent, {**request, "preset": other}).codes):
            return "EN-01"
    return None


def _mentioned(persona: object, tool_filter: object) -> set[str]:
    """The tool names a filter lists and the variables a persona template uses."""
    names = set(_PLACEHOLDER.findall(persona)) if isinstance(persona, str) else set()
    lists = tool_filter.values() if isinstance(tool_filter, dict) else ()
    names.update(n for listed in lists if isinstance(listed, list) for n in listed
                 if isinstance(n, str))
    return names


def _names_in(error: TckError, name: str) -> bool:
    """Whether ``error`` names ``name``: in ``details.offending`` or as a word of the message."""
    listed = error.details.get("offending")
    return (isinstance(listed, list) and name in listed) or re.search(
        rf"(?<![\w-]){re.escape(name)}(?![\w-])", error.message) is not None


_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")


def _refused(
    lock: Lockstep, parent: AgentModel, outcome: Any, error: TckError,
    request: Mapping[str, Any], controls_edition: bool, before: tuple[Any, ...],
) -> None:
    if error.code is ErrorCode.INVALID_TEMPLATE and outcome.persona_grammar and outcome.ok:
        # a '{{' nothing closes or a '}}' that closes nothing: literal prose or an error, the
        # implementation's grammar (docs/rules.md#PE-05); refused, it must create nothing
        # (beside other faults, outcome.codes says where such a refusal may stand)
        lock.unchanged(before, "nothing-created", "FR-03")
        lock.check_all_views()
        return
    if outcome.ok:
        raise lock.diverge(
            "start", f"the start was refused with {error.code.value}: {error.message}; "
            "expected it to be accepted", "accepted", error.to_json(),
            _composition_rule(lock, request, error.code)
            or _other_preset_rule(lock, parent, request, error)
            or refusal_rule(error.code.value, request, controls_edition),
        )
    deciding = outcome.deciding
    assert deciding is not None
    if error.code not in outcome.codes:
        # where several faults apply, the rules fix which code comes first (spec/faults.py):
        # a gate in the wrong order is the rule of the fault it should have met first
        wanted = sorted(c.value for c in outcome.codes)
        raise lock.diverge(
            "start", f"refused with {error.code.value}; expected {' or '.join(wanted)} "
            f"({deciding.reason})", wanted, error.to_json(),
            order_rule(deciding, error.code, request),
        )
    fault = next((f for f in outcome.faults if f.code is error.code), deciding)
    lock.unchanged(before, "nothing-created", _nothing_created_rule(
        deciding if fault.code is ErrorCode.INVALID_REQUEST else fault))
    lock.check_all_views()


def _check_child_header(lock: Lockstep, label: str, parent: str, depth: int) -> None:
    sid = lock.session_ids[label]
    found = {h.session: h for h in lock._guard("sessions", lock.deployment.sessions)}
    header = found.get(sid)
    observed = None if header is None else header.delegationDepth
    parent_sid = lock.session_ids[lock.agent(parent).session]
    if header is None or check_depth(observed).value != depth or header.parent != parent_sid:
        raise lock.diverge(
            "start-depth", "the child's session header records its depth and its parent",
            {"delegationDepth": depth, "parent": parent_sid},
            None if header is None else {"delegationDepth": observed, "parent": header.parent},
            "DE-01",
        )


def _check_snapshot(lock: Lockstep, child: AgentModel, agent_id: str) -> None:
    """FR-02: at the moment the child became visible its view was already final."""
    for event in lock._guard("events", lock.deployment.events):
        if event.kind != "agent.published" or event.agent != agent_id:
            continue
        snapshot = event.data.get("snapshot")
        if not isinstance(snapshot, Mapping):
            return
        # read as the certifier's FR-02 check reads it: sections as pairs or {name, text}
        shown, names = snapshot_of(event.data)
        if isinstance(snapshot.get("view"), list):
            expected = sorted(e.name for e in lock.model.view(child))
            if names != expected:
                if child.label in lock.model.agents:
                    lock.check_view(child.label)  # wrong now too: the view's own rule
                raise lock.diverge(
                    "published", f"{child.label} was published before its view was final",
                    expected, snapshot.get("view"),
                )
        sections = snapshot.get("prompt")
        if isinstance(sections, list):
            expected_prompt = [[s.name, s.text] for s in lock.model.prompt(child)]
            if shown is None or not lock.prompt_agrees(child, shown, expected_prompt):
                if child.label in lock.model.agents:
                    lock.check_prompt(child.label)  # wrong now too: the prompt's own rule
                raise lock.diverge(
                    "published", f"{child.label} was published before its prompt was final",
                    expected_prompt, sections,
                )
        return


def _check_first_request(
    lock: Lockstep, child: AgentModel, agent_id: str, published: bool
) -> None:
    requests = lock.gateway.requests(agent_id)
    if not requests:
        raise lock.diverge(
            "first-request-tools", f"the child {child.label} ran without a model request",
            "one request or more", [],
        )
    first = requests[0]
    extra = [m.content for m in first.messages if m.role == "system"]
    if extra:
        raise lock.diverge(
            "first-request-system", f"the first request of {child.label} carries system text "
            "outside its system prompt: a second persona channel", [], extra, "PE-04",
        )
    tools = sorted(t.name for t in first.tools)
    wire = sorted(lock.model.wire(child))
    if tools != wire:
        raise lock.diverge(
            "first-request-tools", f"the first request of {child.label} lacks its final tools",
            wire, tools, "FR-01",
        )
    lock.check_models(child, requests[:1], "MO-01")
    system = assemble_system_prompt(lock.model.prompt(child))
    if published and lock.system_agrees(child, agent_id, first.system):
        return
    if first.system != system:
        rule = "FR-01"
        if "{{" in first.system and "{{" not in system:
            rule = "PE-05"  # a raw placeholder reached the model
        elif published:
            shown = [[s.name, s.text] for s in lock.deployment.prompt(agent_id)]
            expected = [[s.name, s.text] for s in lock.model.prompt(child)]
            shown = lock.model.kit_sections(shown)
            rule = "PE-04" if shown == expected else lock.prompt_rule(child.label, expected, shown)
        raise lock.diverge(
            "first-request-system", f"the first request of {child.label} carried another "
            "system text than its prompt", system, first.system, rule,
        )


def _put_depth(lock: Lockstep, session: str, depth: Mapping[str, str],
               resumed: bool = True) -> SessionHeader | None:
    """Store ``depth`` as the session's ``delegationDepth`` (DE-06's seam; ``resumed``: a
    resume follows): the header it had, or None when a malformed JSON request was refused as a
    whole (nothing stored)."""
    sid = lock.session_id(session)
    found = {h.session: h for h in lock._guard("sessions", lock.deployment.sessions)}
    current = found.get(sid)
    if current is None:
        raise lock.diverge("headers", f"session {session} is not listed", sid, sorted(found),
                           "DE-09")
    planted = current.model_copy(update={"delegationDepth": _value(depth)})
    if resumed:
        lock.expect([("observe", {})])  # the snapshot before the resume that follows
    _, error = lock.call("put_session_header", lambda: lock.deployment.put_session_header(planted))
    if error is not None:
        if error.code is ErrorCode.INVALID_REQUEST and not is_well_formed(depth["json"]):
            return None
        raise lock.diverge("resume", "put_session_header must store any value unvalidated",
                           "stored", error.to_json(), "DE-06")
    lock.changed()
    return current


def plant(
    lock: Lockstep, session: str, depth: Mapping[str, str], label: str | None = None
) -> None:
    """Write a stored header with ``depth`` (DE-06's seam), then cold-resume the session."""
    current = _put_depth(lock, session, depth)
    if current is None:
        return
    model = lock.model.sessions[session]
    original = model.header
    model.header = _value(depth)
    _resume(lock, session, current, original, label)


def rewrite(lock: Lockstep, session: str, depth: Mapping[str, str]) -> None:
    """Write a stored header with ``depth`` under the session's live agent, without a resume:
    its durable depth changes under the same cap, and its next start and ``subagent`` call read
    it (docs/rules.md#DE-02, #DE-06; ST-07 at the cap). Judged by those later steps."""
    if _put_depth(lock, session, depth, resumed=False) is not None:
        model = lock.model.sessions[session]
        model.header, model.rewritten = _value(depth), True


def _resume_gate(lock: Lockstep, session: SessionModel) -> frozenset[ErrorCode] | None:
    """CA-01 and FR-04 for a descriptor: see :meth:`.tool_model.ToolModel.gate_resume`."""
    if not session.composed:
        return None
    return lock.tool_model().gate_resume(session.provider, {
        "persona": session.persona, "toolFilter": session.tool_filter,
        "outputSchema": session.output_schema, "spawnPolicy": session.spawn_policy,
        "model": session.model})


def resume(lock: Lockstep, session: str, label: str | None = None) -> None:
    _resume(lock, session, None, None, label)


def _resume(
    lock: Lockstep, session: str, restore: SessionHeader | None, original: object,
    label: str | None,
) -> None:
    sid = lock.session_id(session)
    model = lock.model.sessions[session]
    expect, depth = lock.model.expect_resume(model)
    gate = _resume_gate(lock, model)
    if gate is not None and ErrorCode.INVALID_DEPTH not in expect.codes:
        # the descriptor's provider is gone, or lacks a control it asks for. A stored depth
        # outside the domain came first: the session does not load (docs/rules.md#DE-06), so
        # its descriptor asks for nothing. A control the provider lacks is refused as such
        # before the descriptor is applied (docs/rules.md#CA-01, #CA-02); a provider gone and
        # a descriptor that no longer applies are both FR-04's, in either order.
        gated = ErrorCode.UNSUPPORTED_CAPABILITY in gate
        why = f"the descriptor's provider {model.provider!r} " + (
            "does not advertise a control it asks for" if gated else "is not registered")
        expect = (Expect(gate, False, why) if gated
                  else Expect(expect.codes | gate, False, expect.reason or why))
        depth = depth if expect.accept else None
    before = lock.snapshot_later()
    lock.expect([("observe", {}), *lock.all_views_reads()])
    ref, error = lock.call("resume", lambda: lock.deployment.resume(sid))
    rule = ("DE-06" if ErrorCode.INVALID_DEPTH in expect.codes
            else "CA-01" if ErrorCode.UNSUPPORTED_CAPABILITY in expect.codes else "FR-04")
    if error is None and not expect.accept:
        raise lock.diverge(
            "resume", f"resuming {session} was accepted; expected a refusal ({expect.reason})",
            sorted(c.value for c in expect.codes), jsonable_result(ref), rule,
        )
    if error is not None:
        if expect.accept or error.code not in expect.codes:
            wrong = "DE-09" if error.code is ErrorCode.INVALID_DEPTH else "FR-04"
            raise lock.diverge(
                "resume", f"resuming {session} was refused with {error.code.value}: "
                f"{error.message}", sorted(c.value for c in expect.codes) or "accepted",
                error.to_json(), rule if expect.codes else wrong,
            )
        lock.unchanged(before(), "nothing-created", rule)
        if restore is not None:
            restored = restore
            lock.call("put_session_header",
                      lambda: lock.deployment.put_session_header(restored))
            lock.changed()
            model.header = original
        return
    assert ref is not None and depth is not None
    if ref.depth != depth:
        raise lock.diverge(
            "resume-depth", f"resuming {session} must restore its stored header depth", depth,
            ref.depth, "DE-09",
        )
    label = label or lock.model.new_label("r")
    lock.ids[label] = ref.agent
    model.header = depth
    lock.model.resume(model, label)
    lock.check_all_views()
