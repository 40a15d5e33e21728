"""EN: entry points by edition, rules EN-01..EN-03 of docs/rules.md.

EN-01 and EN-02 bind the ``preset-composition`` edition, EN-03 the
``request-controls`` edition (the per-request controls later editions build on).
"""

from __future__ import annotations

from typing import Any

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import Edition, Family
from ._examples import breaks, judged, narrative, obeys, on_spawn

_SEED_000_DECISION = Source(document="000_f18e7de65ba39cf4.txt", section="Decision")
_REVIEWER = {"persona": "You review.", "toolFilter": {"allow": ["read"]}}


_rule = family_rules(Family.EN, _SEED_000_DECISION)


def _en(number: int, slug: str, edition: Edition, statement: str, rationale: str,
        examples: tuple[Example, ...], **overrides: Any) -> Rule:
    return _rule(number, slug, statement, rationale, examples, edition=edition, **overrides)


RULES: tuple[Rule, ...] = (
    _en(
        1,
        "preset-composes",
        Edition.PRESET_COMPOSITION,
        "A new child started with a preset gets that preset's persona and tool filter, and its "
        "output schema too.",
        "In this edition presets own the composition of new children, so a deployment decides "
        "roles in one place instead of every caller repeating them.",
        (
            *judged("start", on_spawn(Edition.PRESET_COMPOSITION, {"preset": "reviewer"},
                                      global_tools=["read", "write"],
                                      presets={"reviewer": _REVIEWER}),
                    obeys("a start with the reviewer preset is accepted",
                          {"ok": True, "childDepth": 1})),
            *narrative({"preset": _REVIEWER},
                       breaks("the child runs with the deployment persona",
                              {"system starts with": "You are a helpful assistant."})),
        ),
    ),
    _en(
        2,
        "request-overrides-refused",
        Edition.PRESET_COMPOSITION,
        "A new start request that carries persona or toolFilter is refused with "
        "REQUEST_CONTROLS_REFUSED (or with the code of another rejection that also applies to "
        "it, such as UNSUPPORTED_CAPABILITY), and nothing is created.",
        "New requests no longer accept these overrides; accepting and ignoring them would "
        "hand the caller a child that is not what it asked for.",
        (
            *judged("start", on_spawn(Edition.PRESET_COMPOSITION, {"persona": "You review."}),
                    obeys("a persona in the request", {"code": "REQUEST_CONTROLS_REFUSED"})),
            *judged("start", on_spawn(Edition.PRESET_COMPOSITION,
                                      {"toolFilter": {"allow": ["read"]}},
                                      global_tools=["read"]),
                    breaks("a toolFilter in the request accepted", {"ok": True})),
        ),
        stateful=True,
    ),
    _en(
        3,
        "request-controls",
        Edition.REQUEST_CONTROLS,
        "The persona and toolFilter of a start request compose the child exactly as the tool "
        "filter and persona rules describe, each subject to the provider's capabilities.",
        "In this edition the request itself carries the role: a plugin can route many roles "
        "through one delegation tool, each start bringing its own persona and allow list.",
        (
            *judged("start", on_spawn(Edition.REQUEST_CONTROLS,
                                      {"persona": "You review.",
                                       "toolFilter": {"allow": ["read"]}, "maxDepth": 1},
                                      global_tools=["read", "write"]),
                    obeys("a per-request role", {"ok": True, "childDepth": 1})),
            *narrative({"request toolFilter": {"allow": ["read"]}},
                       breaks("the reviewer child can still write",
                              {"child tools": ["read", "write"]})),
        ),
        source=Source(document="003_245c1cf8a71a40fd.txt", section="1. 一个工具，十二个角色"),
    ),
)
