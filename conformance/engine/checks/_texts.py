"""The generated texts of the PE, FR and EN checks: personas, sections, variables, presets.

A check that always composed the same persona would certify a target that is right only for
that text (docs/certify.md#generated-cases). A :class:`Vocabulary` is everything one case
names: the deployment persona and its variables, the deployment's other sections, the personas
of a child, a sibling and a preset, the preset names, the global tools and a tool registered
later. :data:`EXAMPLE` is the hand-written case the checks always run; :func:`vocabularies`
draws the others from the whole space the PE/FR/EN rules cover:

- persona texts ASCII and non-ASCII, short and long (up to a few thousand characters), with
  newlines, and texts that contain each other (a child persona that extends the deployment's,
  or is a prefix of it; a section text equal to a persona);
- variable names of the strict template grammar (docs/rules.md#PE-05: a letter or ``_``, then
  letters, digits, ``_``) in related spellings (``team``, ``Team``, ``team_2``, ``_team``),
  and values that are empty, non-ASCII, or look like placeholders themselves (``{{role}}``:
  substituted as text, never rendered again); for a target that refuses names outside
  :data:`~..check.PORTABLE_VARIABLE` (found before the checks run, :mod:`..variable_names`),
  names of that set only (``portable=True``);
- section names in the ``namespace:name`` shape, never the persona section's;
- preset and tool names from :mod:`._names` (case twins, prefixes, non-ASCII, long).

Every expectation is still the oracle's (``decide_start``, ``render_template``,
``resolve_sections``): the texts only make the cases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import strategies as st

from subagent_tck.spec import PERSONA_SECTION, render_template

from ..check import PORTABLE_VARIABLE
from ._names import tool_names

T = TypeVar("T")


@dataclass(frozen=True)
class Vocabulary:
    """The texts and names of one PE/FR/EN case (see the module doc)."""

    deployment_persona: str
    variables: Mapping[str, str]
    #: The deployment's sections after the persona, as ``(name, text)``.
    sections: tuple[tuple[str, str], ...]
    child_persona: str
    sibling_persona: str
    preset_persona: str
    #: Three distinct preset names: the child's, the sibling's, another.
    presets: tuple[str, str, str]
    #: At least four distinct global tool names.
    tools: tuple[str, ...]
    #: A tool name none of ``tools``, registered later (FR-05).
    late: str

    def rendered(self, template: str) -> str:
        """``template`` with the variables substituted (the oracle's rendering)."""
        verdict = render_template(template, self.variables)
        if verdict.text is None:
            raise ValueError(f"check bug: a drawn template is invalid: {verdict.reason}")
        return verdict.text

    @property
    def placeholder_values(self) -> tuple[str, ...]:
        """Variable values that contain ``{{`` (a conforming target sends them as text)."""
        return tuple(v for v in self.variables.values() if "{{" in v)


#: Today's hand-written case, run at every seed.
EXAMPLE = Vocabulary(
    deployment_persona="DEPLOYMENT-PERSONA of {{team}}: a careful generalist.",
    variables={"team": "TEAM-SEVEN", "role": "REVIEWER"},
    sections=(("house:rules", "HOUSE-RULES: answer briefly."),),
    child_persona="CHILD-PERSONA: review as {{role}} for {{team}}.",
    sibling_persona="SIBLING-PERSONA: research only.",
    preset_persona="PRESET-PERSONA: a {{role}}.",
    presets=("child", "sibling", "composed"),
    tools=("read", "write", "search", "doomed"),
    late="late",
)

#: Persona prose: any printable text without braces (placeholders are placed apart).
_PROSE_CHARS = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="{}")
_SHORT = st.text(_PROSE_CHARS, min_size=1, max_size=40)
_ASCII = st.text(st.characters(min_codepoint=32, max_codepoint=126, blacklist_characters="{}"),
                 min_size=1, max_size=60)
#: Long texts: a drawn phrase repeated to 500..3000 characters (cheap to draw, still distinct).
_LONG = st.tuples(_SHORT, st.integers(500, 3000)).map(
    lambda t: (t[0] * (t[1] // len(t[0]) + 1))[: t[1]])
prose = st.one_of(_ASCII, _ASCII, _SHORT, _SHORT.map(lambda s: s + "\n" + s), _LONG)

_LOWER = "abcdefghijklmnopqrstuvwxyz"
_FIRST = _LOWER + _LOWER.upper() + "_"
_IDENT = st.tuples(st.sampled_from(_FIRST), st.text(st.sampled_from(_FIRST + "0123456789"),
                                                    max_size=11)).map("".join)
#: Names of :data:`~..check.PORTABLE_VARIABLE`, for a target that refuses the others.
_PORTABLE_IDENT = st.tuples(
    st.sampled_from(_LOWER), st.text(st.sampled_from(_LOWER + "0123456789_"), max_size=11),
).map("".join)


def variable_name(portable: bool = False) -> st.SearchStrategy[str]:
    """One template variable name: of the strict grammar, or of the portable set only."""
    return _PORTABLE_IDENT if portable else _IDENT

#: A variable value: often empty (a value a ``value || placeholder`` idiom takes for missing).
_VALUE = st.one_of(st.just(""), st.just(""), _ASCII, _SHORT, _LONG)


def _relatives(name: str, portable: bool = False) -> list[str]:
    """Variable names that look like ``name`` (the strict grammar keeps them apart)."""
    out = [name.upper(), name.lower(), name.capitalize(), f"{name}_2", f"_{name}", name[:-1],
           f"{name}2"]
    kept = [o for o in out if o and o != name and (o[0].isalpha() or o[0] == "_")]
    return [o for o in kept if PORTABLE_VARIABLE.fullmatch(o)] if portable else kept


def _pick(draw: Any, options: Sequence[T]) -> T:
    """One of ``options`` (an index drawn: a strategy built per draw costs more than this)."""
    index: int = draw(st.integers(0, len(options) - 1))
    return options[index]


@st.composite
def variables_st(draw: Any, portable: bool = False) -> dict[str, str]:
    """One to four variables with related names; a value may look like a placeholder."""
    names = [draw(variable_name(portable))]
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            name = _pick(draw, _relatives(names[-1], portable) or ["v_x"])
        else:
            name = draw(variable_name(portable))
        if name not in names:
            names.append(name)
    out = {}
    for name in names:
        if draw(st.integers(0, 5)) == 0:
            out[name] = "{{" + _pick(draw, names) + "}}"
        else:
            out[name] = draw(_VALUE)
    return out


def _pieces(draw: Any, names: Sequence[str]) -> list[str]:
    """A template as one to five pieces: prose and ``{{name}}`` placeholders of ``names``.
    (Drawn piece by piece: a strategy built for every template cost more than its draws.)"""
    return [draw(prose) if draw(st.booleans()) else "{{" + _pick(draw, names) + "}}"
            for _ in range(draw(st.integers(1, 5)))]


_HOW = st.sampled_from(("fresh", "fresh", "extends", "prefix"))


def _template(draw: Any, names: Sequence[str], base: list[str] | None = None) -> str:
    """A non-empty template: fresh, or (with ``base``) one that extends or is a prefix of
    ``base`` at a piece boundary (texts that contain each other)."""
    fresh = _pieces(draw, names)
    if base is not None:
        how = draw(_HOW)
        if how == "extends":
            fresh = [*base, *fresh]
        elif how == "prefix":
            fresh = base[: draw(st.integers(1, len(base)))]
    text = "".join(fresh)
    return text if text else "persona"


_SECTION_NAME = st.tuples(
    st.text(st.sampled_from(_LOWER), min_size=1, max_size=8),
    st.text(st.sampled_from(_LOWER + "0123456789_-"), min_size=1, max_size=12),
).map(":".join).filter(lambda n: n != PERSONA_SECTION)


@st.composite
def vocabularies(draw: Any, portable: bool = False) -> Vocabulary:
    """A drawn :class:`Vocabulary` (see the module doc); ``portable``: variable names of
    :data:`~..check.PORTABLE_VARIABLE` only."""
    variables = draw(variables_st(portable))
    names = list(variables)
    deployment = _pieces(draw, names)
    deployment_text = "".join(deployment) or "persona"
    section_names = draw(st.lists(_SECTION_NAME, max_size=3, unique=True))
    sections = []
    for name in section_names:
        text = draw(st.one_of(prose, st.just(deployment_text.replace("{", "").replace("}", "")
                                             or "section")))
        sections.append((name, text))
    child = _template(draw, names, deployment)
    sibling = _template(draw, names, deployment)
    preset = _template(draw, names, deployment)
    # One draw for presets and tools (names often related across both: a preset named like
    # a tool); the first three are the presets.
    names_ = draw(tool_names(8, 11))
    presets, tools = names_[:3], names_[3:]
    return Vocabulary(
        deployment_persona=deployment_text,
        variables=variables,
        sections=tuple(sections),
        child_persona=child,
        sibling_persona=sibling,
        preset_persona=preset,
        presets=(presets[0], presets[1], presets[2]),
        tools=tuple(tools[:-1]),
        late=tools[-1],
    )


def strangers(names: Sequence[str], portable: bool = False) -> list[str]:
    """Variable names of the strict grammar that look like ``names`` but are none of them."""
    out = [r for n in names for r in _relatives(n, portable) if r not in names]
    return list(dict.fromkeys(out)) or ["nobody"]


@st.composite
def template_cases(draw: Any, portable: bool = False) -> tuple[str, Vocabulary]:
    """A non-empty persona template over a drawn vocabulary's variables, built of every kind
    of placeholder PE-05 judges (docs/rules.md#PE-05): known ``{{name}}``, the same with
    spaces, an unknown name that looks like a known one, empty, malformed and unclosed ones,
    stray braces, and prose."""
    texts = draw(vocabularies(portable))
    names = list(texts.variables)
    name = st.sampled_from(names)
    tokens = st.one_of(
        _SHORT, st.sampled_from((" ", "{", "}", "{{}}", "{{a b}}", "{{1x}}")),
        name.map(lambda n: f"{{{{{n}}}}}"), name.map(lambda n: f"{{{{{n}}}}}"),
        name.map(lambda n: f"{{{{ {n} }}}}"),
        st.sampled_from(strangers(names)).map(lambda n: f"{{{{{n}}}}}"),
        name.map(lambda n: f"{{{{{n}")
    )
    if draw(st.booleans()):  # half the time a valid template: every placeholder known
        return "".join(_pieces(draw, names)), texts
    return "".join(draw(st.lists(tokens, min_size=1, max_size=5))), texts
