"""PE: persona (capability ``persona``), rules PE-01..PE-05 of docs/rules.md.

Examples use the ``sections`` oracle (most-specific-wins prompt assembly) and the ``persona``
oracle (composition and strict templates); PE-04 compares two observations and is narrative.
"""

from __future__ import annotations

from typing import Any

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import PERSONA_SECTION, Capability, Edition, Family
from ._examples import breaks, judged, narrative, obeys, on_acp

_SHADOW = Source(document="000_f18e7de65ba39cf4.txt", section="Persona is a scoped shadow")
_HELPFUL = "You are a helpful assistant."
_DEPLOYMENT = [PERSONA_SECTION, _HELPFUL]
_GUIDE = ["tools:guide", "Read files before editing them."]
_REVIEWER = [PERSONA_SECTION, "You are a strict code reviewer."]


def _composed(given: dict[str, Any], *seen: Example) -> tuple[Example, ...]:
    """Examples of the ``persona`` oracle over the deployment persona ``_HELPFUL`` (``given``
    adds the child's, a preset's, the variables)."""
    return judged("persona", {"deployment": _HELPFUL, **given}, *seen)


_pe = family_rules(Family.PE, _SHADOW, capability=Capability.PERSONA, stateful=True)


RULES: tuple[Rule, ...] = (
    _pe(
        1,
        "child-shadow",
        "A child's persona is an ordinary prompt section named deployment:persona-prefix "
        "registered in the child's scope. Since the most specific section of a name wins, the "
        "child's prompt has the child persona exactly where the deployment persona stood, and "
        "the prompts of the parent and of siblings do not change.",
        "Reusing normal section resolution changes one child's role without touching "
        "deployment-wide prompt assembly or inventing a second mechanism.",
        (
            *judged("sections", {"inherited": [_DEPLOYMENT, _GUIDE], "scoped": [_REVIEWER]},
                    obeys("the child persona takes the deployment persona's place",
                          [_REVIEWER, _GUIDE]),
                    breaks("the child persona appended after the deployment's",
                           [_DEPLOYMENT, _GUIDE, _REVIEWER])),
            *judged("sections", {"inherited": [_DEPLOYMENT, _GUIDE], "scoped": []},
                    obeys("the parent's prompt is unchanged", [_DEPLOYMENT, _GUIDE])),
        ),
    ),
    _pe(
        2,
        "omitted-inherits",
        "When no child persona is given, the child's prompt carries the composed persona: the "
        "preset's persona if the preset has one, otherwise the deployment's.",
        "Leaving the persona out must mean keeping what the deployment (or the chosen preset) "
        "already composes, not dropping the role instructions.",
        (
            *_composed({}, obeys("no preset: the deployment persona", {"text": _HELPFUL})),
            *_composed({"preset": "You review."},
                       obeys("the preset's persona wins over the deployment's",
                             {"text": "You review."}),
                       breaks("preset persona ignored", {"text": _HELPFUL})),
        ),
    ),
    _pe(
        3,
        "empty-shadows",
        "An explicit empty persona shadows the deployment persona with an empty section, so no "
        "deployment persona text reaches the child. It is still a persona request, so the "
        "capability gate applies to it.",
        "An empty string is a deliberate choice (a child with no role preamble), different from "
        "leaving the persona out; treating it as absent would silently restore the default.",
        (
            *_composed({"child": ""},
                       obeys("empty persona: empty text", {"text": ""}),
                       breaks("empty persona treated as omitted", {"text": _HELPFUL})),
            *judged("start", on_acp(Edition.REQUEST_CONTROLS, {"prompt": "hi", "persona": ""}),
                    obeys("an empty persona still needs the persona capability",
                          {"code": "UNSUPPORTED_CAPABILITY"})),
        ),
    ),
    _pe(
        4,
        "one-channel",
        "The section the model actually received is the section that prompt inspection reports "
        "for that scope, with the same name and the same text; no second channel carries a "
        "persona.",
        "With a single registration mechanism, the first prompt, later prompts and inspection "
        "tools all see the same named contribution, so what is inspected is what was sent.",
        (
            *narrative({"inspected": [PERSONA_SECTION, "You review."]},
                       obeys("inspection and wire agree",
                             {"gateway system prompt starts with": "You review."})),
            *narrative({"inspected": _DEPLOYMENT},
                       breaks("persona sent through a side channel",
                              {"gateway system prompt starts with": "You review."})),
        ),
        stateful=False,
    ),
    _pe(
        5,
        "strict-template",
        "A child persona follows the same strict template rules as the deployment persona: "
        "known {{variable}} placeholders are filled in, and an unknown or malformed one is an "
        "error naming it, so no model request ever contains a raw placeholder.",
        "A placeholder that slips through unfilled reaches the model as literal braces. "
        "Grammar (a Decision): {{name}} is the spelling all implementations read; a {{ with a "
        "later }} that forms no name is malformed; a {{ that nothing closes and a }} that "
        "closes nothing are the implementation's grammar, literal prose or an error naming "
        "them, never partly substituted.",
        (
            *_composed({"child": "You review for {{team}}.", "variables": {"team": "infra"}},
                       obeys("a known variable is substituted",
                             {"text": "You review for infra."})),
            *_composed({"child": "Hi {{nmae}}."},
                       obeys("an unknown variable is an error", {"code": "INVALID_TEMPLATE"})),
            *_composed({"child": "Review {{team}}, then {{ more", "variables": {"team": "infra"}},
                       obeys("a {{ that nothing closes is literal prose, sent as written",
                             {"text": "Review infra, then {{ more"}),
                       obeys("... or refused, naming it: the implementation's grammar",
                             {"code": "INVALID_TEMPLATE"})),
            *_composed({"child": "Review }} {{team}}.", "variables": {"team": "infra"}},
                       breaks("a }} that closes nothing is never partly substituted",
                              {"text": "Review }} {{team}}."})),
            *_composed({"child": "Hi {{1x}}."},
                       breaks("a {{ with a later }} that forms no name is malformed",
                              {"text": "Hi {{1x}}."})),
            *_composed({"child": "Hi {{nmae}}."},
                       breaks("the raw placeholder reaches the model", {"text": "Hi {{nmae}}."})),
        ),
    ),
)
