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
``[\\w-]+``) in a delegation tool's name, description or the words of its parameter schema
breaks it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from .restriction import Restriction, validate_spawn_policy


def parse_policies(values: Iterable[object], presets: Collection[str]) -> tuple[Restriction, ...]:
    """Spawn policies known to be valid over ``presets`` (installed ones, a catalogue example's,
    a check's own) as restrictions; ``ValueError`` naming the first that is not."""
    out = []
    for raw in values:
        verdict = validate_spawn_policy(raw, presets)
        if verdict.restriction is None:
            raise ValueError(f"the spawn policy {raw!r} is invalid: {verdict.reason}")
        out.append(verdict.restriction)
    return tuple(out)


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


#: Keys of a tool's parameter schema whose string values speak to the model (where a list of
#: presets would stand: an enum of agent types, a description), beside the parameters' own
#: names; other keys and values are the schema's syntax (``"type": "string"``, ``false``).
_SPOKEN = frozenset({"description", "title", "enum", "const", "default", "examples"})


def _spoken(schema: object, out: list[str], speaking: bool = False) -> None:
    if isinstance(schema, str):
        if speaking:
            out.append(schema)
    elif isinstance(schema, Mapping):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, Mapping):
                out.extend(str(name) for name in value)
            _spoken(value, out, key in _SPOKEN)
    elif isinstance(schema, (list, tuple)):
        for item in schema:
            _spoken(item, out, speaking)


def offered_text(tool: Mapping[str, object]) -> str:
    """What one offered tool says to the model: its name, description and the words of its
    parameter schema (``{name, description?, parameters?}``; descriptions, titles, enums,
    constants, defaults, examples and the parameters' names, not the schema's syntax) as one
    text."""
    parts = [str(tool.get("name", "")), str(tool.get("description", ""))]
    _spoken(tool.get("parameters"), parts)
    return "\n".join(parts)


def words(text: str) -> frozenset[str]:
    """The whole tokens of a text (names of the grammar stand as tokens, :func:`name_token`)."""
    return frozenset(re.findall(r"[\w-]+", text))


def named_refused(
    tools: Iterable[Mapping[str, object]],
    policies: Sequence[Restriction],
    presets: Iterable[str],
    ignore: Collection[str] = (),
) -> dict[str, list[str]]:
    """SP-02: per offered delegation tool, the refused presets its text names (empty: the
    tools offered name no preset the policies refuse). ``ignore``: words the tools say
    whatever the presets are (their wording with no preset defined): a preset named like one
    of them cannot be told apart from the tool's own wording, so it is not judged."""
    refused = [p for p in refused_presets(policies, presets) if p not in ignore]
    out: dict[str, list[str]] = {}
    for tool in tools:
        text = offered_text(tool)
        named = [p for p in refused if re.search(name_token(p), text)]
        if named:
            out[str(tool.get("name", ""))] = named
    return out
