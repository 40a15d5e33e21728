"""Which rule a divergence breaks: the observation table and the diagnosis of a view.

:data:`OBSERVATION_RULES` is the small table every comparison of the lockstep uses: each kind of
observation belongs to the rules listed (the first is the default). A divergence then names one
primary rule, found by the functions below:

- a start's refusal by the oracle's first :class:`~subagent_tck.spec.Fault` (:func:`fault_rule`),
  or by the code the target gave where the oracle accepts (:func:`refusal_rule`);
- a wrong view by explaining each misjudged name (:func:`view_rule`): ``run_code`` is TF-06,
  a scope-local name TF-04/TF-05 (TF-03 under ``allow: []``; a missing ``structured_output``
  is CA-04: an advertised outputSchema not honoured), a name that is no global any more TF-11;
  for a global name the observed view is compared with *counterfactual* views, each the result
  of one known misreading of one rule (a disposed restriction still applied: TF-14; a
  restriction that judges only the globals that existed when it was installed, or an allow list
  kept as a deny list of the others: TF-09/TF-10; the intersection of only some of the
  restrictions: TF-02; an empty list read as absent: TF-03; the view frozen at the last
  dispose, or a dispose that lifted all: TF-14; another scope's restrictions leaking in: TF-13).
  The first misreading that reproduces the observation names the rule; otherwise TF-02
  (several restrictions), TF-01 (one) or TF-13.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from subagent_tck.spec import (
    RUN_CODE,
    STRUCTURED_OUTPUT,
    ErrorCode,
    Fault,
    Restriction,
    Stage,
)

from .model import COMPOSED, AgentModel, DeploymentModel, null_lists

#: observation kind -> the rules it belongs to (primary first).
OBSERVATION_RULES: Mapping[str, tuple[str, ...]] = {
    "register-global": ("TF-06", "TF-11"),
    "register-local": ("TF-06", "TF-05", "TF-04"),
    "unregister-global": ("TF-11",),
    "unregister-local": ("TF-04", "TF-05"),
    "restrict": ("TF-08", "TF-07", "TF-03", "TF-01"),
    "restrict-offending": ("TF-08",),
    "dispose": ("TF-14",),
    "set-mode": ("TF-06",),
    "view": (
        "TF-01", "TF-02", "TF-03", "TF-04", "TF-05", "TF-06", "TF-09", "TF-10", "TF-11",
        "TF-13", "TF-14", "CA-04", "FR-04", "EN-01", "EN-03", "ST-02", "ST-05", "ST-07",
    ),
    "view-duplicates": ("TF-05",),
    "global-view": ("TF-13", "TF-11"),
    "schemas": ("TF-12", "TF-06"),
    "lookup": ("TF-12",),
    "execute": ("TF-12", "TF-05"),
    "sdk": ("TF-12", "TF-06"),
    "run-code": ("TF-12", "TF-06", "TF-05"),
    "prompt": ("PE-01", "PE-02", "PE-03", "PE-04", "TF-16"),
    "headers": ("DE-01", "DE-09"),
    "create-agent": ("DE-06", "DE-07"),
    "start": (
        "CA-01", "CA-05", "EN-02", "EN-03", "DE-03", "DE-05", "DE-06", "DE-07", "DE-08", "DE-10",
        "TF-07", "TF-08", "PE-05", "FR-03", "SP-01",
    ),
    "nothing-created": ("DE-04", "CA-02", "FR-03", "EN-02", "CA-05", "SP-01"),
    "start-depth": ("DE-01", "DE-02"),
    "published": ("FR-02",),
    "first-request-tools": ("FR-01", "EN-01", "EN-03"),
    "first-request-system": ("PE-04", "FR-01", "PE-01", "PE-02", "PE-03"),
    "resume": ("DE-06", "FR-04"),
    "resume-depth": ("DE-09",),
    "nothing-changed": ("TF-07", "TF-08", "TF-06", "TF-14"),
    # the subagent tool's component (fuzz/subagent.py) and the requests of a turn
    "tool-load": ("ST-05", "ST-04", "EN-03", "EN-02"),
    "tool-unload": ("ST-04",),
    "provider": ("ST-02", "ST-05"),
    "host-depth": ("ST-06",),
    "tool-schema": ("ST-01", "ST-02", "ST-03"),
    "tool-call": ("ST-07", "ST-06", "ST-09"),
    "tool-child": ("EN-03", "FR-01", "PE-01", "PE-02", "PE-03"),
    "turn-request": ("FR-05", "FR-01", "PE-05", "TF-05"),
    "notice": ("ST-08",),
    "abort": ("ST-09",),
    # spawn policies and models (fuzz/policies.py; a start's first and later requests)
    "spawn-policy": ("SP-01",),
    "spawn-policy-offending": ("SP-01",),
    "model": ("MO-01", "MO-02"),
    "crash": (),
}


_PRESENTED = ("view", "view-duplicates", "global-view", "schemas", "sdk")
#: operation -> the observations the lockstep compares when it runs (see :mod:`.operations`).
OP_OBSERVATIONS: Mapping[str, tuple[str, ...]] = {
    "register_global": ("register-global", "nothing-changed", *_PRESENTED),
    "unregister_global": ("unregister-global", *_PRESENTED),
    "register_local": ("register-local", *_PRESENTED),
    "unregister_local": ("unregister-local", *_PRESENTED),
    "restrict": ("restrict", "restrict-offending", "nothing-changed", *_PRESENTED),
    "dispose": ("dispose", *_PRESENTED),
    "set_mode": ("set-mode", *_PRESENTED),
    "view": ("view", "view-duplicates", "global-view"),
    "schemas": ("schemas",),
    "sdk": ("sdk",),
    "lookup": ("lookup",),
    "execute": ("execute",),
    "run_code": ("run-code",),
    "prompt": ("prompt",),
    "headers": ("headers",),
    "create_agent": ("create-agent", "nothing-created", *_PRESENTED),
    "start": (
        "start", "nothing-created", "start-depth", "published", "first-request-tools",
        "first-request-system", "turn-request", "register-global", "unregister-global",
        "model", *_PRESENTED,
    ),
    "plant": ("resume", "nothing-created", "resume-depth", *_PRESENTED),
    "resume": ("resume", "nothing-created", "resume-depth", *_PRESENTED),
    "load_tool": ("tool-load", "nothing-changed", "tool-schema", *_PRESENTED),
    "unload_tool": ("tool-unload", "tool-schema", *_PRESENTED),
    "remove_provider": ("provider", "tool-schema", *_PRESENTED),
    "add_provider": ("provider", "tool-schema", *_PRESENTED),
    "set_host_depth": ("host-depth",),
    "call_tool": ("tool-call", "tool-child", "turn-request", "notice", "abort", "tool-schema",
                  "model", *_PRESENTED),
    "rewrite": ("resume", "headers"),
    "rebind": ("resume", "nothing-created", "resume-depth", *_PRESENTED),
    "install_policy": ("spawn-policy", "spawn-policy-offending", "nothing-changed"),
    "dispose_policy": ("spawn-policy",),
}


def rules_compared(operations: Iterable[str]) -> list[str]:
    """The rules whose observations a run of these operations compared."""
    rules: set[str] = set()
    for op in operations:
        for observation in OP_OBSERVATIONS.get(op, ()):
            rules.update(OBSERVATION_RULES.get(observation, ()))
    return sorted(rules)


def fault_rule(fault: Fault, request: Mapping[str, object]) -> str:
    """The rule a refusal the oracle expects for a start belongs to."""
    code = fault.code
    if code is ErrorCode.NO_PROVIDER:
        return "CA-05"
    if code is ErrorCode.UNKNOWN_PRESET:
        return "EN-01"
    if code is ErrorCode.REQUEST_CONTROLS_REFUSED:
        return "EN-02"
    if code is ErrorCode.UNSUPPORTED_CAPABILITY:
        return "CA-01"
    if code is ErrorCode.DEPTH_EXCEEDED:
        return "DE-03"
    if code is ErrorCode.INVALID_DEPTH:
        reason = fault.reason
        if reason.startswith("maxDepth"):
            return "DE-05"
        if reason.startswith("stored"):
            return "DE-06"
        if reason.startswith("runtime"):
            return "DE-07"
        return "DE-08"
    if code is ErrorCode.INVALID_TOOL_FILTER:
        if "TF-07" in fault.reason:
            return "TF-07"
        return "TF-08" if "TF-08" in fault.reason else "FR-03"
    if code is ErrorCode.INVALID_TEMPLATE:
        return "PE-05"
    if code in (ErrorCode.SPAWN_DENIED, ErrorCode.INVALID_SPAWN_POLICY):
        return "SP-01"
    if code is ErrorCode.INVALID_REQUEST and fault.reason.startswith("model"):
        return "MO-01"  # a model that is no name (docs/rules.md#MO-01, its Decision)
    return "FR-03"


def order_rule(deciding: Fault, given: ErrorCode, request: Mapping[str, object]) -> str:
    """The rule a refusal with the wrong one of several applicable codes breaks: a setup fault
    reported where a depth rejection was due is DE-04 (a depth rejection comes before the child
    is owned, setup after; SP-01 for a spawn-policy refusal); otherwise the rule of the fault
    met first (spec/faults.py)."""
    setup = Fault(given, "").phase is Stage.SETUP
    if setup and deciding.phase in (Stage.VALUE, Stage.DEPTH):
        # a spawn-policy refusal creates nothing as a depth rejection does (docs/rules.md#SP-01)
        return "SP-01" if deciding.code is ErrorCode.SPAWN_DENIED else "DE-04"
    return fault_rule(deciding, request)


def refusal_rule(code: str, request: Mapping[str, object], edition_controls: bool) -> str:
    """The rule broken when a target refuses a start the oracle accepts, by the code it gave."""
    if code == ErrorCode.DEPTH_EXCEEDED.value:
        return "DE-03" if "maxDepth" in request else "DE-10"
    if code == ErrorCode.INVALID_DEPTH.value:
        return "DE-05" if "maxDepth" in request else "DE-06"
    if code == ErrorCode.UNSUPPORTED_CAPABILITY.value:
        return "CA-01"
    if code == ErrorCode.REQUEST_CONTROLS_REFUSED.value:
        return "EN-03" if edition_controls else "EN-01"
    if code == ErrorCode.INVALID_TOOL_FILTER.value:
        return "TF-03" if _only_empty_lists(request.get("toolFilter")) else "TF-08"
    if code == ErrorCode.INVALID_TEMPLATE.value:
        return "PE-05"
    if code == ErrorCode.NO_PROVIDER.value:
        return "CA-05"
    if code in (ErrorCode.SPAWN_DENIED.value, ErrorCode.INVALID_SPAWN_POLICY.value):
        return "SP-01"
    if code == ErrorCode.INVALID_REQUEST.value and request.get("model") is not None:
        return "MO-01"  # a model name refused as malformed
    return "FR-03"


def restrict_rule(value: object, offending: Sequence[str], accepted_wrongly: bool) -> str:
    """The rule of a wrong accept/refuse of one restriction."""
    if offending:
        return "TF-06" if RUN_CODE in offending and accepted_wrongly else "TF-08"
    if accepted_wrongly or null_lists(value):  # a null beside a list is absent (TF-07)
        return "TF-07"
    return "TF-03" if _only_empty_lists(value) else "TF-01"


def _only_empty_lists(value: object) -> bool:
    """A filter whose lists are all empty (a refusal of it is TF-03's, not TF-08's)."""
    return _has_empty_list(value) and isinstance(value, Mapping) and not any(
        value.get(k) for k in ("allow", "deny"))


def _has_empty_list(value: object) -> bool:
    return isinstance(value, Mapping) and any(value.get(k) == [] for k in ("allow", "deny"))


# --- explaining a wrong view ---------------------------------------------------------------


def _admitted(names: Iterable[str], rules: Iterable[Restriction]) -> frozenset[str]:
    rules = tuple(rules)
    return frozenset(n for n in names if all(r.admits(n) for r in rules))


def _without_empty(r: Restriction) -> Restriction:
    return Restriction(None if r.allow == frozenset() else r.allow, r.deny)


def _nulls_as_empty(r: Restriction, nulls: frozenset[str]) -> Restriction:
    empty: frozenset[str] = frozenset()
    return Restriction(empty if "allow" in nulls else r.allow, empty if "deny" in nulls else r.deny)


def _snapshot_admits(r: Restriction, name: str, installed: int, registered: int) -> bool:
    """A restriction that judges only the globals that existed when it was installed: a tool
    registered (again) later is hidden, whatever the lists say."""
    return r.admits(name) if registered <= installed else False


def _counterfactuals(
    model: DeploymentModel, agent: AgentModel
) -> list[tuple[str, frozenset[str]]]:
    """(rule, visible globals) under one misreading of that rule, in order of precedence."""
    scope = agent.scope
    names = [n for n in model.globals if n not in scope.locals]
    current = list(scope.restrictions.items())
    rules = [r for _, r in current]
    out: list[tuple[str, frozenset[str]]] = []
    if scope.disposed:
        kept = rules + [r for r, _ in scope.disposed.values()]
        out.append(("TF-14", _admitted(names, kept)))  # a dispose that lifted nothing
        out.append(("TF-14", frozenset(names)))  # a dispose that lifted every restriction
    snap: set[str] = set()
    live_deny_hides = False
    for name in names:
        registered = model.registered_at.get(name, -1)
        judged = [
            (_snapshot_admits(r, name, scope.issued.get(label, -1), registered), r)
            for label, r in current
        ]
        if all(ok for ok, _ in judged):
            snap.add(name)
        elif any(not ok and r.allow is None and r.admits(name) for ok, r in judged):
            live_deny_hides = True
    out.append(("TF-09" if live_deny_hides else "TF-10", frozenset(snap)))
    # an allow list stored as a deny list of the globals registered then: later ones slip in
    as_deny = frozenset(
        n for n in names
        if all(
            r.admits(n) or (r.allow is not None and n not in model.globals_at(
                scope.issued.get(label, -1)))
            for label, r in current
        )
    )
    out.append(("TF-10", as_deny))
    if len(rules) >= 2:
        for i in range(len(rules)):
            out.append(("TF-02", _admitted(names, rules[:i] + rules[i + 1 :])))
        union = frozenset(n for n in names if any(r.admits(n) for r in rules))
        out.append(("TF-02", union))
    if scope.nulls:  # a list given as null read as an empty list
        out.append(("TF-07", _admitted(names, [
            _nulls_as_empty(r, scope.nulls.get(label, frozenset())) for label, r in current])))
    out.append(("TF-03", _admitted(names, [_without_empty(r) for r in rules])))
    if scope.disposed:
        last = max(step for _, step in scope.disposed.values())
        then = set(model.globals_at(last))
        out.append(("TF-14", _admitted([n for n in names if n in then], rules)))
    others = [
        r
        for other in model.agents.values()
        if other is not agent
        for r in other.scope.restrictions.values()
    ]
    if others:
        out.append(("TF-13", _admitted(names, rules + others)))
    return out


def view_rule(
    model: DeploymentModel,
    agent: AgentModel | None,
    observed: set[tuple[str, str]],
    expected: set[tuple[str, str]],
) -> str:
    """The primary rule a wrong view of ``agent`` (None: the global view) breaks."""
    wrong = observed ^ expected
    names = {name for name, _ in wrong}
    if agent is None:
        return "TF-11" if any(n not in model.globals for n in names) else "TF-13"
    scope = agent.scope
    if RUN_CODE in names:
        return "TF-06"
    for name in sorted(names):
        if name in scope.locals:
            if any(r.allow == frozenset() for r in scope.restrictions.values()):
                return "TF-03"  # allow: [] hid a scope-local tool
            if name == STRUCTURED_OUTPUT and (name, "local") not in observed:
                # a resumed child's descriptor not re-applied; else an advertised outputSchema
                # not honoured
                return "FR-04" if agent.kind == "resumed" else "CA-04"
            return "TF-05" if name in model.globals else "TF-04"
    if scope.disposed:  # the whole view frozen when the last restriction was disposed
        last = max(step for _, step in scope.disposed.values())
        rules = list(scope.restrictions.values())
        then = _admitted([n for n in model.globals_at(last) if n not in scope.locals], rules)
        seen_all = frozenset(n for n, origin in observed if origin == "global")
        if seen_all == then and then != frozenset(n for n, o in expected if o == "global"):
            return "TF-14"
    for name in sorted(names):
        if name not in model.globals:
            if name in model.ever_global:
                return "TF-11"
            leaked = any(name in a.scope.locals for a in model.agents.values())
            return "TF-13" if leaked else "TF-12"
    seen = frozenset(n for n, origin in observed if origin == "global" and n in model.globals)
    wanted = frozenset(n for n, origin in expected if origin == "global")
    composed = scope.restrictions.get(COMPOSED)
    rest = [r for label, r in scope.restrictions.items() if label != COMPOSED]
    # the descriptor's tool filter not re-applied on resume
    unapplied = (agent.kind == "resumed" and composed is not None
                 and seen == _admitted([n for n in model.globals if n not in scope.locals], rest))
    if unapplied and not rest:
        return "FR-04"
    # views are judged after every step: where restrictions were installed since the resume
    # (whose view was judged with the descriptor's filter alone), their rules explain it first
    for rule, visible in _counterfactuals(model, agent):
        if visible == seen and visible != wanted:
            return rule
    if unapplied:
        return "FR-04"
    count = len(scope.restrictions)
    if count >= 2:
        return "TF-02"
    if count == 1:
        only = next(iter(scope.restrictions.values()))
        shown_despite_empty_allow = only.allow == frozenset() and bool(seen)
        hidden_despite_empty_deny = (
            only.allow is None and only.deny == frozenset() and bool(wanted - seen)
        )
        return "TF-03" if shown_despite_empty_allow or hidden_despite_empty_deny else "TF-01"
    return "TF-14" if scope.disposed else "TF-13"
