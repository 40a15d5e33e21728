"""Agents and sessions outside a start: a top-level agent created at a depth, and the depth a
session's stored header holds, written and resumed.

``create_agent`` (header and runtime depth, DE-06, DE-07), ``plant`` (a stored header written
with ``put_session_header`` and then cold-resumed, DE-06, DE-09), ``rewrite`` (written under the
session's live agent, read by its later starts and ``subagent`` calls: DE-02, ST-07) and
``resume`` (the stored depth restored, DE-09; a descriptor's provider and controls gated again:
docs/rules.md#CA-01, docs/rules.md#FR-04). Each depth arrives as raw JSON text, as a start's does
(:func:`.children.depth_arg`).
"""

from __future__ import annotations

from collections.abc import Mapping

from subagent_tck.conformance.core.protocol import SessionHeader
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.spec import ABSENT, ErrorCode, check_depth

from .children import depth_arg, jsonable_result
from .lockstep import Lockstep
from .model import AgentModel, Expect, ScopeModel, SessionModel
from .strategies import is_well_formed


def create_agent(
    lock: Lockstep, header: Mapping[str, str], runtime: Mapping[str, str] | None,
    label: str | None = None,
) -> None:
    header_value = depth_arg(header)
    runtime_value = ABSENT if runtime is None else depth_arg(runtime)
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
    planted = current.model_copy(update={"delegationDepth": depth_arg(depth)})
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
    model.header = depth_arg(depth)
    _resume(lock, session, current, original, label)


def rewrite(lock: Lockstep, session: str, depth: Mapping[str, str]) -> None:
    """Write a stored header with ``depth`` under the session's live agent, without a resume:
    its durable depth changes under the same cap, and its next start and ``subagent`` call read
    it (docs/rules.md#DE-02, #DE-06; ST-07 at the cap). Judged by those later steps. A runtime
    that keeps one live owner per session may end it to write the log (DSH's adapter, as a
    restart would): that agent is forgotten (:func:`_owner_gone`), and the rewrite judges
    nothing there."""
    if _put_depth(lock, session, depth, resumed=False) is not None:
        model = lock.model.sessions[session]
        model.header, model.rewritten = depth_arg(depth), True
        _owner_gone(lock, model)


def _resume_gate(lock: Lockstep, session: SessionModel) -> frozenset[ErrorCode] | None:
    """CA-01 and FR-04 for a descriptor: see :meth:`.tool_model.ToolModel.gate_resume`."""
    if not session.composed:
        return None
    return lock.tool_model().gate_resume(session.provider, {
        "persona": session.persona, "toolFilter": session.tool_filter,
        "outputSchema": session.output_schema, "spawnPolicy": session.spawn_policy,
        "model": session.model})


def _owner_gone(lock: Lockstep, session: SessionModel) -> None:
    """Forget the session's live agent where the target no longer lists it after a stored
    header was planted (rewritten under it, or planted and the resume refused): a runtime that
    keeps one live owner per session ends it to load the log again, as a restart would (DSH);
    the rules say nothing of that agent, and the session stays (as for a child retired after
    its run, fuzz/children.py). Where it was the last agent, the example stops as one the
    target cannot express (Unsupported: another is drawn)."""
    owner = session.agent
    if owner is None or lock.ids.get(owner) in lock._guard("agents", lock.deployment.agents):
        return
    lock.model.agents.pop(owner, None)
    session.agent = None
    if not lock.model.agents:  # nothing left to run the steps that follow: draw another
        raise Unsupported("put-session-header", "a stored header under the only live agent",
                          "the target ended that agent to write its log")


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
        # a stored depth outside the domain: "the session does not load", and DE-06 names no
        # code for that (docs/rules.md#DE-06; its check reads it so too): any refusal that
        # leaves nothing created is right, unless a descriptor gate would refuse the resume
        # too, which the depth must come before (the depth's code then tells the order)
        unloadable = ErrorCode.INVALID_DEPTH in expect.codes and not expect.accept \
            and gate is None
        if expect.accept or (error.code not in expect.codes and not unloadable):
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
        _owner_gone(lock, model)
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
