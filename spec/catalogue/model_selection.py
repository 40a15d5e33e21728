"""MO: model selection (capability ``modelSelection``), rules MO-01 and MO-02 of docs/rules.md.

MO-01 is judged by the ``start`` oracle (the model a child's requests carry); MO-02 compares a
child's requests over its life (later turns, cold resume), so its examples are narrative.
"""

from __future__ import annotations

from typing import Any

from ..rule import Rule, Source, family_rules
from ..vocabulary import Capability, Family
from ._examples import ALL_CONTROLS, breaks, judged, narrative, obeys, start_given

_PRACTICE = Source(document="runtimes", section="Known practice")


def _start(request: dict[str, Any], preset_model: str | None = None) -> dict[str, Any]:
    """A start from a parent on big-model, with the preset reviewer on ``preset_model``."""
    preset: dict[str, object] = {} if preset_model is None else {"model": preset_model}
    return start_given(None, {"spawn": ALL_CONTROLS}, request,
                       presets={"reviewer": preset}, parent={"model": "big-model"})


_mo = family_rules(Family.MO, _PRACTICE, capability=Capability.MODEL_SELECTION)


RULES: tuple[Rule, ...] = (
    _mo(
        1,
        "composed-model",
        "A child composed with a model, by its preset, its start request (which wins) or its "
        "descriptor, sends every model request with that model, the first included; a child "
        "composed without one sends its parent's model. Its parent's and siblings' requests "
        "keep their own models.",
        "Cost, latency and ability follow the model, so a role configured on a small model must "
        "run on it. Decision: a model is a non-empty name compared exactly; absent or null "
        "means the parent's model, which runtimes spell inherit.",
        (
            *judged("start", _start({"preset": "reviewer"}, "small-model"),
                    obeys("the preset's model", {"ok": True, "model": "small-model"}),
                    breaks("the parent's model sent instead of the preset's",
                           {"ok": True, "model": "big-model"})),
            *judged("start", _start({"preset": "reviewer", "model": "tiny-model"}, "small-model"),
                    obeys("the request's model wins over the preset's",
                          {"ok": True, "model": "tiny-model"})),
            *judged("start", _start({"preset": "reviewer"}),
                    obeys("no model composed: the parent's", {"ok": True, "model": "big-model"})),
            *judged("start", _start({"model": ""}),
                    breaks("a model that is no name", {"ok": True, "model": "big-model"},
                           "An empty model name is refused (INVALID_REQUEST), never read as "
                           "absent.")),
        ),
        stateful=True,
    ),
    _mo(
        2,
        "model-stable",
        "A child's later requests, and its requests after a cold resume, carry the model of "
        "its first request.",
        "A model that drifts mid-task, or is lost when a session is resumed, changes the "
        "child's abilities and cost without anyone asking for it.",
        (
            *narrative({"first request": {"model": "small-model"}},
                       obeys("the second request after a tool call",
                             {"second request": {"model": "small-model"}})),
            *narrative({"descriptor": {"provider": "spawn", "model": "small-model"},
                        "parent model": "big-model"},
                       breaks("a resumed child that falls back to the parent's model",
                              {"resumed request": {"model": "big-model"}})),
        ),
        stateful=False,
    ),
)
