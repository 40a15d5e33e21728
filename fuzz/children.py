"""A child started: the start pipeline, judged against the oracle.

Every depth enters the fuzzer as raw JSON text (``{"json": "9007199254740993"}``) and reaches the
target as :func:`.strategies.depth_value` of it (:func:`depth_arg`): here a start's ``maxDepth``
(DE-03, DE-05, DE-08, DE-10; the depths of a created agent and of a stored header:
:mod:`.sessions`). A start is judged by :func:`subagent_tck.spec.decide_start`: refused with one
of its codes and nothing created (DE-04, CA-02, FR-03), or accepted with the derived depth
(DE-01, DE-02), a published snapshot that is already final (FR-02) and a first model request that
carries the whole composition (FR-01, PE-01..PE-04, EN-01, EN-03); a registry change its model
makes during its turn reaches its next request (docs/rules.md#FR-05). Which rule a divergence
breaks where its fault does not say: :mod:`.start_rules`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from subagent_tck.conformance.core.gateway import call, text
from subagent_tck.conformance.core.protocol import (
    ModelReply,
    ModelRequest,
    StartRequest,
    ToolSpec,
    snapshot_of,
)
from subagent_tck.spec import (
    ABSENT,
    RUN_CODE,
    Edition,
    ErrorCode,
    Fault,
    TckError,
    assemble_system_prompt,
    check_depth,
)

from .lockstep import Lockstep
from .model import AgentModel
from .rulemap import fault_rule, order_rule, refusal_rule
from .start_rules import (
    composition_rule,
    fallback_rule,
    nothing_created_rule,
    other_preset_rule,
    runtime_rule,
    unvalidated_rule,
)
from .strategies import depth_value, is_well_formed


def depth_arg(arg: Mapping[str, str]) -> object:
    return depth_value(arg["json"])


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
        request[key] = depth_arg(value) if key == "maxDepth" else copy.deepcopy(value)
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
            fallback_rule(lock, request, result)
            or unvalidated_rule(lock, parent_model, request, result, outcome.faults[0].code)
            or runtime_rule(lock, parent_model, request, None, getattr(result, "depth", None))
            or composition_rule(lock, request, outcome.faults[0].code)
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


def jsonable_result(result: object) -> object:
    dump = getattr(result, "model_dump", None)
    return dump(mode="json") if dump is not None else result


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
            composition_rule(lock, request, error.code)
            or other_preset_rule(lock, parent, request, error)
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
    lock.unchanged(before, "nothing-created", nothing_created_rule(
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
