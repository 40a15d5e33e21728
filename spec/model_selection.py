"""Model selection: the model every request of a child must carry (docs/rules.md#MO-01,
docs/rules.md#MO-02).

A child composed with a model (its preset's, its start request's, which wins, or on cold resume
its descriptor's) sends every model request with that model; a child composed without one sends
its parent's. A top-level agent runs on the deployment's model. The model of a child never
changes: its later and its resumed requests carry the model of its first.

Decision: a model is named by a non-empty string, compared exactly (the runtimes' aliases are
the adapter's translation). Absent or ``null`` means "the parent's model" (the runtimes spell
it ``inherit`` or leave the field out; the kit leaves it out and never draws ``inherit``).
"""

from __future__ import annotations

from .depth import ABSENT


def model_problem(value: object) -> str:
    """Why ``value`` is not a model name ("" when it is one): a non-empty string."""
    if not isinstance(value, str):
        return f"model must be a model name (a string), got {type(value).__name__}"
    if not value:
        return "model must be a non-empty model name"
    return ""


def child_model(composed: object, parent_model: str | None) -> str | None:
    """The model a child's requests carry: the composed one (``ABSENT``/``None``: none
    composed) else its parent's (``None``: the parent reports no model)."""
    if composed is ABSENT or composed is None:
        return parent_model
    return str(composed)
