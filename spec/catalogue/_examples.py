"""The recurring shapes of the catalogue's examples, one home each.

A rule's examples name a state once, then each observation of it with its title and whether
it obeys the rule::

    *judged("view", given, obeys("title", observed), breaks("title", observed))

:func:`judged` makes executable examples (an oracle judges them), :func:`narrative` the others;
:func:`stated` builds a ``given`` from the parts a state has;
:func:`start_given` is the ``given`` of a ``start`` example (:mod:`subagent_tck.spec.start`), and
:func:`on_spawn` and :func:`on_acp` that of a start on one of the two providers the catalogue's
start examples use most.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..rule import Example, OracleKind
from ..vocabulary import CONTROLS, Edition

#: The four controls of the design note the catalogue starts from (depth, persona, tool filter,
#: output schema): what the providers of its start examples advertise.
FIRST_CONTROLS = [control.value for control in CONTROLS[:4]]
#: Every control a start can ask for, spawn policy and model included.
ALL_CONTROLS = [control.value for control in CONTROLS]


def obeys(title: str, observed: Any, note: str = "") -> Example:
    """An observation that obeys the rule, for :func:`judged` or :func:`narrative` to give its
    state."""
    return Example(title=title, observed=observed, holds=True, note=note)


def breaks(title: str, observed: Any, note: str = "") -> Example:
    """An observation that breaks the rule, for :func:`judged` or :func:`narrative` to give its
    state."""
    return Example(title=title, observed=observed, holds=False, note=note)


def judged(oracle: OracleKind, given: dict[str, Any], *seen: Example) -> tuple[Example, ...]:
    """Executable examples: each observation of ``seen`` (:func:`obeys`, :func:`breaks`) of the
    one state ``given``, which ``oracle`` judges (:func:`subagent_tck.spec.judge.judge`)."""
    return tuple(example.model_copy(update={"oracle": oracle, "given": given})
                 for example in seen)


def narrative(given: dict[str, Any], *seen: Example) -> tuple[Example, ...]:
    """Narrative examples: each observation of ``seen`` (:func:`obeys`, :func:`breaks`) of the
    one state ``given``, over time that no single state function captures."""
    return tuple(example.model_copy(update={"given": given}) for example in seen)


def start_given(edition: Edition | None, providers: Mapping[str, list[str]],
                request: Mapping[str, Any], *, global_tools: list[str] | None = None,
                presets: Mapping[str, Any] | None = None,
                parent: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``given`` of a ``start`` example: the edition (None: none named, which the oracle
    reads as preset-composition), the providers with the capabilities each advertises, the
    deployment's global tools and presets, the parent, and the request. The request goes to the
    first provider with the prompt "go"; ``request`` adds its other fields, or names another
    provider or prompt."""
    return stated(edition=None if edition is None else edition.value, providers=dict(providers),
                  globals=global_tools, presets=presets, parent=parent,
                  request={"provider": next(iter(providers)), "prompt": "go", **request})


def stated(**fields: Any) -> dict[str, Any]:
    """A ``given`` of the ``fields`` that are not None, in their order: what a state lacks is
    left out rather than given as null."""
    return {key: value for key, value in fields.items() if value is not None}


def on_spawn(edition: Edition, request: Mapping[str, Any], **state: Any) -> dict[str, Any]:
    """The ``given`` of a start on the provider spawn, which advertises the first four controls
    (``state``: the global tools, presets and parent of :func:`start_given`)."""
    return start_given(edition, {"spawn": FIRST_CONTROLS}, request, **state)


def on_acp(edition: Edition, request: Mapping[str, Any], *, advertises: tuple[str, ...] = (),
           **state: Any) -> dict[str, Any]:
    """The ``given`` of a start on the provider acp, which advertises ``advertises`` (nothing by
    default): a start that asks it for any other control is refused (docs/rules.md#CA-01)."""
    return start_given(edition, {"acp": list(advertises)}, request, **state)
