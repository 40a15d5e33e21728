"""Which rule a start's divergence breaks, where the fault the oracle decided does not say.

A start the target decided otherwise than :func:`subagent_tck.spec.decide_start` (:mod:`.children`)
breaks the rule of the fault it missed (:func:`.rulemap.fault_rule`, :func:`.rulemap.refusal_rule`)
unless a second decision or a probe of the target shows another cause: the runtime depth read in
place of a deeper header (docs/rules.md#DE-02), the preset-composition and request-controls
editions mixed up (docs/rules.md#EN-03), another preset composed (a lookup that fell back,
docs/rules.md#EN-01), a persona that could only come from the preset (docs/rules.md#PE-02); and
the rule of a refusal that changed something (:func:`nothing_created_rule`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from subagent_tck.spec import (
    ABSENT,
    PERSONA_SECTION,
    Edition,
    ErrorCode,
    Fault,
    TckError,
    check_depth,
    decide_start,
    validate_restriction,
)

from .lockstep import Lockstep
from .model import AgentModel

_DEPTH_CODES = frozenset({ErrorCode.INVALID_DEPTH, ErrorCode.DEPTH_EXCEEDED})

_COMPOSITION_CODES = frozenset({ErrorCode.INVALID_TEMPLATE, ErrorCode.INVALID_TOOL_FILTER})


def nothing_created_rule(fault: Fault) -> str:
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


def unvalidated_rule(lock: Lockstep, parent: AgentModel, request: Mapping[str, Any],
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


def composition_rule(
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


def fallback_rule(lock: Lockstep, request: Mapping[str, Any], result: Any) -> str | None:
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


def other_preset_rule(
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
