"""The ``subagent`` tool's lifecycle in lockstep (ST-01..ST-05, EN-03), and its providers.

Operations (run on the target and the oracle, like :mod:`.operations`; a call is
:mod:`.tool_calls`):

- ``load_tool`` / ``unload_tool``: a load under a drawn ``toolName`` (the whole tool-name
  grammar, names that differ only in case among them: ST-04), bound to one provider, with
  ``maxDepth`` unset, ``'provider-managed'`` or a depth drawn as JSON text (judged by
  :func:`subagent_tck.spec.decide_tool_load`: ST-04, ST-05), and the controls a load may carry:
  ``persona`` and ``toolFilter`` (sent with every start, docs/rules.md#EN-03) and
  ``agentOptions``. A mounted load is a global tool of the registry (restrictions, views,
  schemas and first requests see it like any global).
- ``remove_provider`` / ``add_provider``: a provider the target ships leaves and comes back;
  every load bound to it disappears and reappears (ST-02), starts on it are ``NO_PROVIDER``
  (CA-05) and a resume of a child started on it is ``NOT_RESUMABLE`` (FR-04).
- ``set_host_depth``: the live host depth setting a load without ``maxDepth`` uses (ST-06).
- ``rebind``: a stored child descriptor rewritten to name another provider, then resumed:
  its persona / toolFilter / outputSchema must be gated on that provider (CA-01).

A load's controls, where the rules leave the target a choice (nothing refused is judged
changed): a ``persona`` or ``toolFilter`` in the preset-composition edition may be refused at
load (``REQUEST_CONTROLS_REFUSED``), else every start the tool makes is (EN-02); a filter that
can never apply (a no-op, a wrong shape, ``run_code`` named) or a persona that can never render
(the deployment's variables are fixed) may be refused at load, else every start is; a filter
naming a tool not registered yet must be accepted (it is checked when a start installs it,
docs/rules.md#TF-08). A control the bound provider does not advertise is refused with
``UNSUPPORTED_CAPABILITY`` at every start (CA-01), or gated at mount as ST-05 gates a numeric
``maxDepth`` (the load refused while the provider is there, the tool absent); the target shows
which once, and is then held to it. ``agentOptions`` ``{model?}`` must be accepted, a malformed
one may be refused; what model a child then runs on is not judged here.

After every change the schemas of a mounted tool are read: exactly ``description`` and
``prompt`` (ST-01), wording that matches the provider's ``inheritsParentContext`` by the
certifier's cues, and the same wording again after a re-mount (ST-02, ST-03).

A load bound to a provider name the target does not ship is never drawn: the rules do not say
when that must fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.core.protocol import SubagentToolConfig
from subagent_tck.spec import (
    RUN_CODE,
    Edition,
    ErrorCode,
    decide_tool_load,
    mounts,
    render_template,
    validate_restriction,
)

from .lockstep import Lockstep
from .sessions import resume
from .strategies import depth_value, is_well_formed
from .tool_model import LOAD_CONTROLS, Load, ToolModel

#: A value a step leaves out of the load's configuration (unlike an explicit null, which is
#: sent, and counts as absent: docs/rules.md#TF-07's Decision).
UNSENT: Any = object()


def tools(lock: Lockstep) -> ToolModel:
    """The component's model of this lockstep (made on first use)."""
    return lock.tool_model()


def _sync(lock: Lockstep, model: ToolModel) -> None:
    """Mounted loads are globals of the model's registry, nothing else is."""
    for name in sorted(model.names):
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


def _load_faults(lock: Lockstep, load: Load, agent_options: object) -> tuple[
        set[ErrorCode], str]:
    """The codes a target may refuse this load's controls with at load (it may instead
    accept it: see the module), and why."""
    codes: set[ErrorCode] = set()
    why: list[str] = []
    if _edition_controls(load) and lock.setup.edition is Edition.PRESET_COMPOSITION:
        codes.add(ErrorCode.REQUEST_CONTROLS_REFUSED)
        why.append("persona/toolFilter are refused in the preset-composition edition (EN-02)")
    value = load.controls.get("toolFilter")
    if value is not None:
        named = {n for k in ("allow", "deny") if isinstance(value, Mapping)
                 for n in (value.get(k) or ()) if isinstance(n, str) and n != RUN_CODE}
        if validate_restriction(value, named).code is not None:
            codes |= {ErrorCode.INVALID_TOOL_FILTER, ErrorCode.INVALID_CONFIG}
            why.append("the toolFilter can never apply (TF-07, TF-08)")
    persona = load.controls.get("persona")
    if persona is not None:
        rendered = render_template(persona, lock.model.variables) if isinstance(
            persona, str) else None
        if rendered is None or rendered.code is not None or rendered.grammar:
            codes |= {ErrorCode.INVALID_TEMPLATE, ErrorCode.INVALID_CONFIG}
            why.append("the persona can never render, or uses the implementation's grammar "
                       "(PE-05)")
    if agent_options is not UNSENT and not _agent_options_ok(agent_options):
        codes |= {ErrorCode.INVALID_CONFIG, ErrorCode.INVALID_REQUEST}
        why.append("agentOptions is an object with an optional model name")
    return codes, "; ".join(why)


def _edition_controls(load: Load) -> bool:
    """Whether ``load`` carries a control the edition decides on (persona, toolFilter: EN-02,
    EN-03; a model is sent in both editions, docs/rules.md#MO-01)."""
    return any(k in load.controls for k in LOAD_CONTROLS)


def _model_control(agent_options: object) -> dict[str, object]:
    """The model a valid ``agentOptions`` gives every child the tool starts: a control of the
    start like the request's ``model`` (it needs ``modelSelection``: docs/rules.md#CA-01,
    #MO-01)."""
    if isinstance(agent_options, Mapping) and _agent_options_ok(agent_options) and isinstance(
            agent_options.get("model"), str):
        return {"model": agent_options["model"]}
    return {}


def _gate_at_mount(model: ToolModel, load: Load) -> bool:
    """Whether mounting ``load`` now may be refused for a control its registered provider
    does not advertise (unless the target showed that it gates them at each start)."""
    caps = model.caps_of(load.provider)
    return (caps is not None and bool(model.lacking(load)) and mounts(load.max_depth, caps)
            and model.controls_at_mount is not False)


def _learn_gate(lock: Lockstep, model: ToolModel, names: list[str]) -> None:
    """Loads ``names`` lack a control of their mounted provider and were not refused: the
    target mounted them (it gates each start) or left them out (it gates at mount)."""
    if not names or model.controls_at_mount is not None:
        return
    shown = {e.name for e in lock._guard("view", lambda: lock.deployment.view(None))}
    model.controls_at_mount = not any(n in shown for n in names)


def _agent_options_ok(value: object) -> bool:
    return value is None or (isinstance(value, Mapping) and set(value) <= {"model"} and (
        value.get("model") is None or isinstance(value.get("model"), str)))


def load_tool(lock: Lockstep, name: str, provider: str, max_depth: object = None,
              persona: object = UNSENT, tool_filter: object = UNSENT,
              agent_options: object = UNSENT) -> None:
    """Load a tool ``name`` bound to ``provider``; the controls left ``UNSENT`` are left out
    of its configuration."""
    model = tools(lock)
    model.names.add(name)
    value = _max_depth(max_depth)
    controls = {k: v for k, v in (("persona", persona), ("toolFilter", tool_filter))
                if v is not None and v is not UNSENT}
    controls.update(_model_control(agent_options))
    load = Load(provider, value, controls)
    verdict = decide_tool_load(name, value, model.loads, model.caps_of(provider))
    must = set(verdict.codes)
    if isinstance(max_depth, Mapping) and not is_well_formed(str(max_depth["json"])):
        must.add(ErrorCode.INVALID_REQUEST)  # over a JSON wire the request is malformed
    may, why = _load_faults(lock, load, agent_options)
    # the mount gate of the controls, as ST-05's of a numeric cap: only past the load checks
    gated = not must and _gate_at_mount(model, load)
    if gated:
        may.add(ErrorCode.UNSUPPORTED_CAPABILITY)
    codes = must | may
    before = lock.snapshot_later() if codes else None
    lock.expect([*([("observe", {})] if codes else []), *lock.all_views_reads()])
    fields: dict[str, Any] = {"provider": provider, "toolName": name, "maxDepth": value}
    for key, sent in (("persona", persona), ("toolFilter", tool_filter),
                      ("agentOptions", agent_options)):
        if sent is not UNSENT:
            fields[key] = sent
    config = SubagentToolConfig(**fields)
    _, error = lock.call("load_subagent_tool",
                         lambda: lock.deployment.load_subagent_tool(config))
    # a taken name refused or not, or a free one refused as taken, is ST-04's
    duplicate = ErrorCode.DUPLICATE_TOOL_NAME in verdict.codes or (
        error is not None and error.code is ErrorCode.DUPLICATE_TOOL_NAME)
    rule = ("ST-04" if duplicate else "ST-05" if verdict.codes or not _edition_controls(load)
            else "EN-03" if lock.setup.edition is Edition.REQUEST_CONTROLS else "EN-02")
    reason = "; ".join(r for r in (verdict.reason, why) if r)
    if lock.check_outcome("tool-load", frozenset(codes), not must, error, rule, reason):
        model.loads[name] = load
        _learn_gate(lock, model, [name] if gated else [])
    else:
        assert error is not None
        if before is not None:
            lock.unchanged(before(), "nothing-changed", rule)
        if gated and error.code is ErrorCode.UNSUPPORTED_CAPABILITY:
            model.controls_at_mount = True
        if name in model.loads and model.mounted(name):  # a refused load of a taken name
            shown = {e.name for e in lock._guard("view", lambda: lock.deployment.view(None))}
            if name not in shown:
                raise lock.diverge("tool-load", f"a refused second load of {name!r} took the "
                                   "first load's tool away", [name], sorted(shown), "ST-04")
    _sync(lock, model)
    lock.check_all_views()


def unload_tool(lock: Lockstep, name: str) -> None:
    model = tools(lock)
    lock.expect(lock.all_views_reads())
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
    lock.expect(lock.all_views_reads())
    _, error = lock.call("remove_provider", lambda: lock.deployment.remove_provider(provider))
    lock.check_outcome("provider", frozenset(), False, error, "ST-02")
    model.present.discard(provider)
    _sync(lock, model)
    lock.check_all_views()


def add_provider(lock: Lockstep, provider: str) -> None:
    model = tools(lock)
    if provider in model.present or provider not in model.capabilities:
        return
    # a load whose numeric cap the provider cannot honour may refuse the mount loudly, and
    # so may one whose controls it does not advertise (unless the target gates each start)
    refusing = any(
        load.provider == provider and not mounts(load.max_depth, model.capabilities[provider])
        for load in model.loads.values()
    )
    model.present.add(provider)
    controls = [n for n, load in model.loads.items()
                if load.provider == provider and _gate_at_mount(model, load)]
    model.present.discard(provider)
    refusing = refusing or bool(controls)
    lock.expect(lock.all_views_reads())
    _, error = lock.call("add_provider", lambda: lock.deployment.add_provider(provider))
    codes = frozenset({ErrorCode.UNSUPPORTED_CAPABILITY}) if refusing else frozenset()
    lock.check_outcome("provider", codes, refusing, error, "ST-05" if refusing else "ST-02")
    if error is None:
        model.present.add(provider)
    else:  # refused loudly: whether the provider stayed registered is the target's choice
        listed = {p.name for p in lock._guard("providers", lock.deployment.providers)}
        if provider in listed:
            model.present.add(provider)
        if error.code is ErrorCode.UNSUPPORTED_CAPABILITY and controls and not any(
                load.provider == provider and not mounts(load.max_depth,
                                                         model.capabilities[provider])
                for load in model.loads.values()):
            model.controls_at_mount = True
    if provider in model.present:
        _learn_gate(lock, model, controls)
    _sync(lock, model)
    lock.check_all_views()


def set_host_depth(lock: Lockstep, depth: int) -> None:
    model = tools(lock)
    _, error = lock.call("set_host_depth", lambda: lock.deployment.set_host_depth(depth))
    lock.check_outcome("host-depth", frozenset(), False, error, "ST-06")
    model.host_depth = depth


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
