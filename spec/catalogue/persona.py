"""PE: persona (capability ``persona``), rules PE-01..PE-05 of docs/rules.md.

Examples use the ``sections`` oracle (most-specific-wins prompt assembly) and the ``persona``
oracle (composition and strict templates); PE-04 compares two observations and is narrative.
"""

from __future__ import annotations

from typing import Any

from ..rule import Example, Rule, Source, family_rules
from ..vocabulary import PERSONA_SECTION, Capability, Family

_SHADOW = Source(document="000_f18e7de65ba39cf4.txt", section="Persona is a scoped shadow")
_HELPFUL = "You are a helpful assistant."
_DEPLOYMENT = [PERSONA_SECTION, _HELPFUL]
_GUIDE = ["tools:guide", "Read files before editing them."]
_REVIEWER = [PERSONA_SECTION, "You are a strict code reviewer."]


def _composed(title: str, given: dict[str, Any], observed: Any, holds: bool) -> Example:
    """An example of the ``persona`` oracle over the deployment persona ``_HELPFUL`` (its
    ``given`` adds the child's, a preset's, the variables)."""
    return Example(title=title, oracle="persona", given={"deployment": _HELPFUL, **given},
                   observed=observed, holds=holds)


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
            Example(
                title="the child persona takes the deployment persona's place",
                oracle="sections",
                given={"inherited": [_DEPLOYMENT, _GUIDE], "scoped": [_REVIEWER]},
                observed=[_REVIEWER, _GUIDE],
                holds=True,
            ),
            Example(
                title="the child persona appended after the deployment's",
                oracle="sections",
                given={"inherited": [_DEPLOYMENT, _GUIDE], "scoped": [_REVIEWER]},
                observed=[_DEPLOYMENT, _GUIDE, _REVIEWER],
                holds=False,
            ),
            Example(
                title="the parent's prompt is unchanged",
                oracle="sections",
                given={"inherited": [_DEPLOYMENT, _GUIDE], "scoped": []},
                observed=[_DEPLOYMENT, _GUIDE],
                holds=True,
            ),
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
            _composed("no preset: the deployment persona",
                      {},
                      {"text": "You are a helpful assistant."}, True),
            _composed("the preset's persona wins over the deployment's",
                      {"preset": "You review."},
                      {"text": "You review."}, True),
            _composed("preset persona ignored",
                      {"preset": "You review."},
                      {"text": "You are a helpful assistant."}, False),
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
            _composed("empty persona: empty text",
                      {"child": ""},
                      {"text": ""}, True),
            _composed("empty persona treated as omitted",
                      {"child": ""},
                      {"text": "You are a helpful assistant."}, False),
            Example(
                title="an empty persona still needs the persona capability",
                oracle="start",
                given={
                    "edition": "request-controls",
                    "providers": {"acp": []},
                    "request": {"provider": "acp", "prompt": "hi", "persona": ""},
                },
                observed={"code": "UNSUPPORTED_CAPABILITY"},
                holds=True,
            ),
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
            Example(
                title="inspection and wire agree",
                given={"inspected": [PERSONA_SECTION, "You review."]},
                observed={"gateway system prompt starts with": "You review."},
                holds=True,
            ),
            Example(
                title="persona sent through a side channel",
                given={"inspected": [PERSONA_SECTION, "You are a helpful assistant."]},
                observed={"gateway system prompt starts with": "You review."},
                holds=False,
            ),
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
            _composed("a known variable is substituted",
                      {"child": "You review for {{team}}.", "variables": {"team": "infra"}},
                      {"text": "You review for infra."}, True),
            _composed("an unknown variable is an error",
                      {"child": "Hi {{nmae}}."},
                      {"code": "INVALID_TEMPLATE"}, True),
            _composed("a {{ that nothing closes is literal prose, sent as written",
                      {"child": "Review {{team}}, then {{ more", "variables": {"team": "infra"}},
                      {"text": "Review infra, then {{ more"}, True),
            _composed("... or refused, naming it: the implementation's grammar",
                      {"child": "Review {{team}}, then {{ more", "variables": {"team": "infra"}},
                      {"code": "INVALID_TEMPLATE"}, True),
            _composed("a }} that closes nothing is never partly substituted",
                      {"child": "Review }} {{team}}.", "variables": {"team": "infra"}},
                      {"text": "Review }} {{team}}."}, False),
            _composed("a {{ with a later }} that forms no name is malformed",
                      {"child": "Hi {{1x}}."},
                      {"text": "Hi {{1x}}."}, False),
            _composed("the raw placeholder reaches the model",
                      {"child": "Hi {{nmae}}."},
                      {"text": "Hi {{nmae}}."}, False),
        ),
    ),
)
