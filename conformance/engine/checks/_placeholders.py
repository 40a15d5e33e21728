"""The placeholder shapes of PE-05's grammar (docs/rules.md#PE-05, Decision), one strategy each:
a persona template over a drawn :class:`~._texts.Vocabulary` whose placeholders are of that
shape, mixed with prose and known ``{{name}}`` placeholders.

- valid: every placeholder a known ``{{name}}``;
- unknown: a ``{{name}}`` of the strict grammar that is no variable;
- object members: a name an implementation might find on its own objects rather than among
  the registered variables (``__proto__``, ``constructor``, ``toString``, ``__class__``,
  ``keys``, ...);
- case twins: a name that differs from a registered one only by case;
- malformed groups: ``{{}}``, ``{{1x}}`` (a digit first), ``{{a-b}}``/``{{a.b}}``/``{{a b}}``;
- brace runs of any length (``{{{team}}}``, ``{{{{``, ``}}}}}``);
- a ``{{`` that nothing closes, and a ``}}`` that closes nothing before or after a placeholder;
- spaces inside the braces of a known name (``{{ team }}``: the implementation's grammar);
- a persona of whitespace only.

:func:`shape` says which shape a template is, for the membership tests of the partitions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hypothesis import strategies as st

from ._template_grammar import classify
from ._texts import Vocabulary, prose, variable_name, vocabularies

#: Names found on an implementation's own objects (JavaScript's Object.prototype, Python's
#: object and dict attributes, common container methods): a lookup that falls through to them
#: substitutes a function or a class where the rule asks for an error naming the placeholder.
OBJECT_MEMBERS = (
    "__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf",
    "propertyIsEnumerable", "toLocaleString", "__defineGetter__", "__lookupGetter__",
    "prototype", "length", "__class__", "__dict__", "__init__", "__module__", "__doc__",
    "keys", "values", "items", "get", "pop", "update", "copy", "format", "__len__",
)
#: Characters of a whitespace-only persona (JavaScript's ``trim`` and Python's ``strip`` drop
#: each of them).
WHITESPACE = " \t\n\u00a0\u2003\u3000"

_PUNCTUATED = ("-", ".", " ", "/", ":")


def _known(draw: Any, texts: Vocabulary) -> str:
    name: str = draw(st.sampled_from(sorted(texts.variables)))
    return "{{" + name + "}}"


def _prose(draw: Any) -> str:
    text: str = draw(prose)
    return text


def _around(draw: Any, texts: Vocabulary, parts: Sequence[str]) -> str:
    """``parts`` in order, with prose and known placeholders drawn around and between them."""
    out: list[str] = []
    for part in parts:
        for _ in range(draw(st.integers(0, 2))):
            out.append(_prose(draw) if draw(st.booleans()) else _known(draw, texts))
        out.append(part)
    for _ in range(draw(st.integers(0, 2))):
        out.append(_prose(draw) if draw(st.booleans()) else _known(draw, texts))
    return "".join(out)


def _ident(draw: Any) -> str:
    first = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"))
    rest = draw(st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789_"), max_size=8))
    return str(first + rest)


def _twin(name: str) -> list[str]:
    return [t for t in dict.fromkeys((name.upper(), name.lower(), name.capitalize(),
                                      name.swapcase())) if t != name]


def _templates(draw: Any, texts: Vocabulary, kind: str) -> tuple[str, ...]:
    """The templates of one case of ``kind``: one, or, where a target may get some names of
    the shape right and others wrong, one per name (every object member; every case twin of a
    variable), each alone in the same drawn text."""
    names = sorted(texts.variables)
    if kind == "object-member":
        before, after = _around(draw, texts, []), _around(draw, texts, [])
        return tuple(before + "{{" + m + "}}" + after for m in OBJECT_MEMBERS
                     if m not in texts.variables)
    if kind == "case-twin":
        name = draw(st.sampled_from([n for n in names if _twins(n, texts)]))
        before, after = _around(draw, texts, []), _around(draw, texts, [])
        return tuple(before + "{{" + t + "}}" + after for t in _twins(name, texts))
    return (_template(draw, texts, kind),)


def _twins(name: str, texts: Vocabulary) -> list[str]:
    return [t for t in _twin(name) if t not in texts.variables]


def _template(draw: Any, texts: Vocabulary, kind: str) -> str:
    names = sorted(texts.variables)
    if kind == "valid":
        return _around(draw, texts, [_known(draw, texts)])
    if kind == "unknown":
        name = _ident(draw)
        while name in texts.variables:
            name += "_"
        return _around(draw, texts, ["{{" + name + "}}"])
    if kind == "empty-group":
        return _around(draw, texts, ["{{" + draw(st.sampled_from(("", " ", "  "))) + "}}"])
    if kind == "digit-first":
        digits = draw(st.text(st.sampled_from("0123456789"), min_size=1, max_size=3))
        return _around(draw, texts, ["{{" + digits + draw(st.sampled_from(("", "x", "_a"))) + "}}"])
    if kind == "punctuated":
        left, right = _ident(draw), _ident(draw)
        return _around(draw, texts, ["{{" + left + draw(st.sampled_from(_PUNCTUATED)) + right
                                     + "}}"])
    if kind == "brace-run":
        opening, closing = draw(st.integers(3, 7)), draw(st.integers(2, 7))
        inner = draw(st.sampled_from(["", *names]))
        run = "{" * opening + inner + "}" * closing
        return _around(draw, texts, [run if draw(st.booleans()) else run[::-1]])
    if kind == "unclosed-open":
        first: str = draw(st.sampled_from(["", *names]))
        tail = first + _prose(draw)
        return _around(draw, texts, []) + "{{" + tail
    if kind == "stray-close-before":
        return _prose(draw) + "}}" + _around(draw, texts, [_known(draw, texts)])
    if kind == "stray-close-after":
        return _around(draw, texts, [_known(draw, texts)]) + _prose(draw) + "}}" + _prose(draw)
    if kind == "spaces-in-braces":
        name = draw(st.sampled_from(names))
        spaced = "{{" + draw(st.sampled_from((" ", "  ", "\t"))) + name + \
            draw(st.sampled_from(("", " ", "  "))) + "}}"
        return _around(draw, texts, [spaced])
    if kind == "whitespace-only":
        return str(draw(st.text(st.sampled_from(WHITESPACE), min_size=1, max_size=8)))
    raise ValueError(f"check bug: no placeholder shape {kind!r}")


Case = tuple[tuple[str, ...], Vocabulary]


def shape_cases(kind: str) -> Callable[[Any], st.SearchStrategy[Case]]:
    """The strategy of ``kind``'s cases (templates and their vocabulary), as a function of the
    check's context (its variable names of the portable set only, for a target that refuses
    the others)."""
    def make(ctx: Any) -> st.SearchStrategy[Case]:
        @st.composite
        def cases(draw: Any) -> Case:
            texts = draw(vocabularies(ctx.portable_variables))
            if kind == "case-twin" and not any(_twins(n, texts) for n in texts.variables):
                # no variable with a letter to change the case of: give the vocabulary one
                name = draw(variable_name(ctx.portable_variables).filter(
                    lambda n: any(c.isalpha() for c in n)))
                texts = dataclasses.replace(texts, variables={**texts.variables, name: "v"})
            return _templates(draw, texts, kind), texts
        return cases()
    return make


def member(kind: str) -> Callable[[Case], bool]:
    """Whether every template of a case is of shape ``kind``."""
    def inside(case: Case) -> bool:
        return bool(case[0]) and all(kind in shape(t, case[1].variables) for t in case[0])
    return inside


def shape(template: str, variables: Iterable[str]) -> set[str]:
    """Every shape ``template`` has (a template may have several)."""
    known = set(variables)
    marks = classify(template, dict.fromkeys(known, ""))
    inner = [t[2:-2] for t in (*marks.unknown, *marks.lenient)]
    out: set[str] = set()
    if template and not template.strip():
        out.add("whitespace-only")
    if marks.known and not (marks.unknown or marks.lenient or marks.literal):
        out.add("valid")
    for name in (t[2:-2] for t in marks.unknown):
        out.add("unknown")
        if name in OBJECT_MEMBERS:
            out.add("object-member")
        if any(name.lower() == k.lower() for k in known):
            out.add("case-twin")
    if any(not i.strip() for i in inner):
        out.add("empty-group")
    if any(i[:1].isdigit() for i in inner):
        out.add("digit-first")
    if any(c in i.strip() for i in inner for c in _PUNCTUATED):
        out.add("punctuated")
    if "{{{" in template or "}}}" in template:
        out.add("brace-run")
    if any(p.startswith("{{") for p in marks.literal):
        out.add("unclosed-open")
    first_open = template.find("{{")
    for stray in _strays(template):
        out.add("stray-close-before" if first_open < 0 or stray < first_open
                else "stray-close-after")
    if any(t[2:-2].strip() in known and t[2:-2] != t[2:-2].strip() for t in marks.lenient):
        out.add("spaces-in-braces")
    return out


def _strays(template: str) -> list[int]:
    """Where a ``}}`` that closes nothing stands (as :func:`._template_grammar.classify` reads
    a template: every ``{{`` opens a group the next ``}}`` closes)."""
    out: list[int] = []
    done, pos = 0, template.find("{{")
    while True:
        literal_end = len(template) if pos < 0 else pos
        at = template.find("}}", done)
        while 0 <= at < literal_end - 1:
            out.append(at)
            at = template.find("}}", at + 2)
        if pos < 0:
            return out
        end = template.find("}}", pos + 2)
        if end < 0:
            return out
        done, pos = end + 2, template.find("{{", end + 2)


SHAPES = ("valid", "unknown", "object-member", "case-twin", "empty-group", "digit-first",
          "punctuated", "brace-run", "unclosed-open", "stray-close-before", "stray-close-after",
          "spaces-in-braces", "whitespace-only")
DESCRIPTIONS = {
    "valid": "every placeholder a known {{name}}: substituted",
    "unknown": "a {{name}} that is no variable: refused, naming it",
    "object-member": "each name found on an implementation's own objects (__proto__, "
                     "constructor, toString, __class__, keys, ...), not a variable, alone in "
                     "the same text: refused, naming it",
    "case-twin": "each name that differs from a variable only by case (upper, lower, "
                 "capitalized, swapped), alone in the same text: refused, naming it",
    "empty-group": "{{}} or {{ }}: refused or substituted, never sent raw",
    "digit-first": "a group that begins with a digit ({{1x}}): refused or substituted, never raw",
    "punctuated": "a group with -, ., a space, / or : between names ({{a-b}}): refused or "
                  "substituted, never raw",
    "brace-run": "a run of three to seven braces ({{{name}}}, }}}}): never partly substituted",
    "unclosed-open": "a {{ that nothing closes: sent as written or refused naming it",
    "stray-close-before": "a }} that closes nothing, before the placeholders: sent as written "
                          "or refused naming it",
    "stray-close-after": "a }} that closes nothing, after a placeholder: sent as written or "
                         "refused naming it",
    "spaces-in-braces": "a known name with spaces inside the braces ({{ name }}): substituted "
                        "or refused naming it",
    "whitespace-only": "a persona of whitespace only: sent as written, shadowing the "
                       "deployment persona",
}
