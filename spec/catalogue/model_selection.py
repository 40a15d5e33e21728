"""MO: model selection (capability ``modelSelection``), rules MO-01 and MO-02 of docs/rules.md.

MO-01 is judged by the ``start`` oracle (the model a child's requests carry); MO-02 compares a
child's requests over its life (later turns, cold resume), so its examples are narrative.
"""

from __future__ import annotations

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import Capability, Family

_PRACTICE = Source(document="runtimes", section="Known practice")
_ALL = ["depthLimit", "persona", "toolFilter", "outputSchema", "spawnPolicy", "modelSelection"]


def _start(request: dict[str, object], preset_model: str | None = None) -> dict[str, object]:
    preset: dict[str, object] = {} if preset_model is None else {"model": preset_model}
    return {
        "providers": {"spawn": _ALL},
        "presets": {"reviewer": preset},
        "parent": {"model": "big-model"},
        "request": {"provider": "spawn", "prompt": "go", **request},
    }


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
            Example(
                title="the preset's model",
                oracle="start",
                given=_start({"preset": "reviewer"}, "small-model"),
                observed={"ok": True, "model": "small-model"},
                holds=True,
            ),
            Example(
                title="the parent's model sent instead of the preset's",
                oracle="start",
                given=_start({"preset": "reviewer"}, "small-model"),
                observed={"ok": True, "model": "big-model"},
                holds=False,
            ),
            Example(
                title="the request's model wins over the preset's",
                oracle="start",
                given=_start({"preset": "reviewer", "model": "tiny-model"}, "small-model"),
                observed={"ok": True, "model": "tiny-model"},
                holds=True,
            ),
            Example(
                title="no model composed: the parent's",
                oracle="start",
                given=_start({"preset": "reviewer"}),
                observed={"ok": True, "model": "big-model"},
                holds=True,
            ),
            Example(
                title="a model that is no name",
                oracle="start",
                given=_start({"model": ""}),
                observed={"ok": True, "model": "big-model"},
                holds=False,
                note="An empty model name is refused (INVALID_REQUEST), never read as absent.",
            ),
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
            Example(
                title="the second request after a tool call",
                given={"first request": {"model": "small-model"}},
                observed={"second request": {"model": "small-model"}},
                holds=True,
            ),
            Example(
                title="a resumed child that falls back to the parent's model",
                given={"descriptor": {"provider": "spawn", "model": "small-model"},
                       "parent model": "big-model"},
                observed={"resumed request": {"model": "big-model"}},
                holds=False,
            ),
        ),
        stateful=False,
    ),
)
