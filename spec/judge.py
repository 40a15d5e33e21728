"""Executable examples: decide from the oracle whether an example's observation conforms.

Each oracle kind reads ``given`` and ``observed`` in one documented shape (below). The lint
test of the catalogue requires ``judge(example) == example.holds`` for every executable example,
so the catalogue's examples and the oracle can never drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .depth import ABSENT, check_depth, check_depth_json, decide_start_depth
from .errors import ErrorCode
from .persona import Section, compose_persona, render_template, resolve_sections
from .restriction import (
    Restriction,
    RestrictionVerdict,
    validate_restriction,
    validate_spawn_policy,
)
from .rule import Example
from .spawn_policy import named_refused, parse_policies
from .start import Preset, StartState, decide_start
from .view import Origin, resolve_view, sdk_binding_names, wire_tool_names
from .vocabulary import Capability, Edition, PresentationMode


def _restrictions(given: Mapping[str, Any]) -> list[Restriction]:
    # A restriction was validated when it was installed: names in ``removed`` were registered
    # globals then and have been unregistered since (TF-11: the restriction stays valid).
    installed_over = [*given.get("globals", ()), *given.get("removed", ())]
    out = []
    for raw in given.get("restrictions", ()):
        verdict = validate_restriction(raw, installed_over)
        if verdict.restriction is None:
            raise ValueError(f"example restriction {raw!r} is itself invalid: {verdict.reason}")
        out.append(verdict.restriction)
    return out


def _view(given: Mapping[str, Any]) -> tuple[Any, PresentationMode]:
    mode = PresentationMode(given.get("mode", "native"))
    view = resolve_view(
        given.get("globals", ()), _restrictions(given), given.get("locals", ()), mode
    )
    return view, mode


def _parse_entry(text: str) -> tuple[str, Origin]:
    name, _, origin = text.partition(":")
    return name, Origin(origin) if origin else Origin.GLOBAL


def judge_view(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{globals, restrictions, locals, mode?, removed?}`` (``removed``: globals that
    were registered when the restrictions were installed and are gone now); observed a list of
    ``name`` (a global), ``name:local`` or ``run_code:reserved``. One entry per name; order is
    free."""
    view, _ = _view(given)
    entries = [_parse_entry(item) for item in observed]
    if len({name for name, _ in entries}) != len(entries):
        return False
    return set(entries) == {(e.name, e.origin) for e in view}


def judge_wire(given: Mapping[str, Any], observed: Any) -> bool:
    """observed ``{schemas: [...], sdk: [...]}``: what the model request carries and what the
    ``run_code`` SDK binds."""
    view, mode = _view(given)
    return set(observed["schemas"]) == wire_tool_names(view, mode) and set(
        observed["sdk"]
    ) == sdk_binding_names(view, mode)


def judge_restriction(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{globals, restriction}``; observed ``{ok: true}`` or ``{code, offending?}``
    (every offending name must be listed)."""
    return _judge_installed(validate_restriction(given["restriction"], given.get("globals", ())),
                            observed)


def judge_spawn_policy(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{presets: [name], policy}``; observed ``{ok: true}`` or ``{code, offending?}``
    (every unknown preset must be listed)."""
    return _judge_installed(validate_spawn_policy(given["policy"], given.get("presets", ())),
                            observed)


def _policies(given: Mapping[str, Any]) -> tuple[Restriction, ...]:
    return parse_policies(given.get("policies", ()), given.get("presets", ()))


def judge_offered(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{presets: [name], policies: [...]}``; observed the delegation tools the scope's
    model is offered, ``[{name, description?, parameters?}]``: none may name a refused preset
    (SP-02)."""
    return not named_refused(observed, _policies(given), given.get("presets", ()))


def _judge_installed(verdict: RestrictionVerdict, observed: Any) -> bool:
    if observed.get("ok"):
        return verdict.ok
    if verdict.code is None or observed.get("code") != verdict.code.value:
        return False
    return set(observed.get("offending", ())) == set(verdict.offending)


def _judge_depth_verdict(verdict: Any, observed: Any) -> bool:
    if "accepted" in observed:
        return bool(verdict.ok and verdict.value == observed["accepted"])
    return bool(not verdict.ok and observed.get("rejected"))


def judge_depth(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{value}`` (a Python value); observed ``{accepted: n}`` or ``{rejected: true}``."""
    return _judge_depth_verdict(check_depth(given["value"]), observed)


def judge_depth_json(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{json}`` (raw JSON text, as a JavaScript runtime reads it); observed as above."""
    return _judge_depth_verdict(check_depth_json(given["json"]), observed)


def judge_start_depth(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{header, runtime?, maxDepth?}``; observed ``{childDepth}`` or ``{code}``."""
    decision = decide_start_depth(
        given["header"], given.get("runtime", ABSENT), given.get("maxDepth", ABSENT)
    )
    if "childDepth" in observed:
        return bool(decision.ok and decision.child_depth == observed["childDepth"])
    return decision.code is not None and decision.code.value == observed.get("code")


def judge_start(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{edition, providers: {name: [capability]}, globals?, presets?, parent?, request}``
    (``parent``: ``{header?, runtime?, policies?, model?}``, its spawn policies raw over the
    presets); observed ``{ok: true, childDepth?, model?}`` or ``{code}`` (a code the rules allow
    when several faults apply: :attr:`~.start.StartOutcome.codes`)."""
    parent = given.get("parent", {})
    presets = given.get("presets", {})
    state = StartState(
        edition=Edition(given.get("edition", Edition.PRESET_COMPOSITION.value)),
        providers={k: [Capability(c) for c in v] for k, v in given["providers"].items()},
        global_names=given.get("globals", ()),
        presets={
            k: Preset(v.get("persona"), v.get("toolFilter"), v.get("outputSchema"),
                      v.get("spawnPolicy"), v.get("model"))
            for k, v in presets.items()
        },
        parent_header_depth=parent.get("header", 0),
        parent_runtime_depth=parent.get("runtime", ABSENT),
        parent_policies=_policies({"presets": presets, "policies": parent.get("policies", ())}),
        parent_model=parent.get("model"),
    )
    outcome = decide_start(state, given["request"])
    if observed.get("ok"):
        return (outcome.ok
                and observed.get("childDepth", outcome.child_depth) == outcome.child_depth
                and observed.get("model", outcome.model) == outcome.model)
    code = ErrorCode(observed["code"])
    # the persona's literal braces are the implementation's grammar: refused is as right
    # as read as prose (docs/rules.md#PE-05); beside other faults, ``codes`` says where
    return code in outcome.codes or (outcome.ok and code is ErrorCode.INVALID_TEMPLATE
                                     and bool(outcome.persona_grammar))


def judge_persona(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{deployment, preset?, child?, variables?}`` (``child`` absent: no child persona);
    observed ``{text}`` (the persona text the child's prompt carries) or ``{code}``."""
    template = compose_persona(
        given.get("deployment"), given.get("preset"), given.get("child", ABSENT)
    )
    if template is None:
        return observed.get("text") is None and "code" not in observed
    verdict = render_template(template, given.get("variables", {}))
    if "text" in observed:
        return verdict.ok and verdict.text == observed["text"]
    if verdict.ok and verdict.grammar:  # literal prose or an error: the implementation's
        return bool(observed.get("code") == ErrorCode.INVALID_TEMPLATE.value)
    return verdict.code is not None and verdict.code.value == observed.get("code")


def judge_sections(given: Mapping[str, Any], observed: Any) -> bool:
    """given ``{inherited: [[name, text]], scoped: [[name, text]]}``; observed the ordered
    ``[[name, text]]`` of the scope's prompt."""
    expected = resolve_sections(
        [Section(*s) for s in given["inherited"]], [Section(*s) for s in given["scoped"]]
    )
    return [[s.name, s.text] for s in expected] == [list(s) for s in observed]


JUDGES: Mapping[str, Callable[[Mapping[str, Any], Any], bool]] = {
    "view": judge_view,
    "wire": judge_wire,
    "restriction": judge_restriction,
    "depth": judge_depth,
    "depth-json": judge_depth_json,
    "start-depth": judge_start_depth,
    "start": judge_start,
    "persona": judge_persona,
    "sections": judge_sections,
    "spawn-policy": judge_spawn_policy,
    "offered": judge_offered,
}


def judge(example: Example) -> bool:
    """Whether ``example.observed`` conforms, by the oracle named in ``example.oracle``."""
    if example.oracle is None:
        raise ValueError(f"example {example.title!r} is narrative: nothing to judge")
    return JUDGES[example.oracle](example.given, example.observed)
