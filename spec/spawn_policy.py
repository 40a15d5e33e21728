"""Spawn policies: which presets a scope may start (docs/rules.md#SP-01, docs/rules.md#SP-02).

A spawn policy is ``{allow?, deny?}`` over preset names, installed on a scope; it is a
:class:`~.restriction.Restriction` read over presets instead of tools, validated when installed
by :func:`~.restriction.validate_spawn_policy`. A preset passes one policy iff (no ``allow`` or
it is in ``allow``) and (no ``deny`` or it is not in ``deny``); several policies on a scope
intersect, whatever their order (as TF-01 and TF-02 fix for tools). Names are compared exactly:
``Reviewer`` is not ``reviewer``.

Decision: a policy governs starts *of a preset*. A start that names no preset (the runtime's
default composition, and every start of the request-controls edition, whose requests name none)
is not a preset start, so no policy admits or refuses it; ``maxDepth: 0`` is how a scope is
forbidden every child (docs/rules.md#DE-03).

SP-02 reads what a scope's model is offered to delegate with: a refused preset named as a
whole token (:func:`name_token`: preset names are names of the tool-name grammar, tokens of
``[\\w-]+``) in a delegation tool's name, description or parameter schema breaks it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence

from .restriction import Restriction


def admits_preset(policies: Iterable[Restriction], preset: str) -> bool:
    """Whether a scope holding ``policies`` may start ``preset`` (SP-01: allow before deny in
    each policy, every policy must admit it)."""
    return all(policy.admits(preset) for policy in policies)


def refused_presets(policies: Sequence[Restriction], presets: Iterable[str]) -> tuple[str, ...]:
    """The presets among ``presets`` that ``policies`` refuse, in the order given."""
    return tuple(p for p in dict.fromkeys(presets) if not admits_preset(policies, p))


def name_token(name: str) -> str:
    """A regular expression matching ``name`` as a whole token of a text: not inside a longer
    name of the grammar (``read`` is not named by ``read_file``, ``read-2`` or ``Read``)."""
    return rf"(?<![\w-]){re.escape(name)}(?![\w-])"


def offered_text(tool: Mapping[str, object]) -> str:
    """What one offered tool says to the model: its name, description and parameter schema
    (``{name, description?, parameters?}``) as one text."""
    parts = [str(tool.get("name", "")), str(tool.get("description", ""))]
    parameters = tool.get("parameters")
    if parameters is not None:
        parts.append(json.dumps(parameters, ensure_ascii=False, default=str))
    return "\n".join(parts)


def named_refused(
    tools: Iterable[Mapping[str, object]],
    policies: Sequence[Restriction],
    presets: Iterable[str],
) -> dict[str, list[str]]:
    """SP-02: per offered delegation tool, the refused presets its text names (empty: the
    tools offered name no preset the policies refuse)."""
    refused = refused_presets(policies, presets)
    out: dict[str, list[str]] = {}
    for tool in tools:
        text = offered_text(tool)
        named = [p for p in refused if re.search(name_token(p), text)]
        if named:
            out[str(tool.get("name", ""))] = named
    return out
