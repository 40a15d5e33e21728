"""Persona and prompt sections (PE family).

A child persona is an ordinary prompt section named ``deployment:persona-prefix`` registered in
the child's scope; the most specific section of a name wins (PE-01). Persona text is a strict
template: ``{{name}}`` placeholders must be known variables, other groups are an error (PE-05).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from .depth import ABSENT
from .errors import ErrorCode

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


@dataclass(frozen=True)
class TemplateVerdict:
    """The rendered text, or the code and the placeholders at fault.

    ``grammar`` lists the parts that are the implementation's grammar (docs/rules.md#PE-05,
    "template grammar"): a ``{{`` that no later ``}}`` closes and a ``}}`` that closes nothing,
    which the oracle reads as literal prose (in ``text``); and a placeholder spelled otherwise
    than ``{{name}}`` (spaces inside the braces, a dot in the name), which it substitutes. A
    runtime may refuse any of them instead, naming them, and a judge accepts either; none is
    ever partly substituted or sent raw.
    """

    text: str | None
    code: ErrorCode | None = None
    unknown: tuple[str, ...] = ()
    malformed: tuple[str, ...] = ()
    grammar: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.code is None

    @property
    def reason(self) -> str:
        parts = []
        if self.unknown:
            parts.append("unknown variable(s) " + ", ".join(self.unknown))
        if self.malformed:
            parts.append("malformed placeholder(s) " + ", ".join(self.malformed))
        return "; ".join(parts)


def _strays(literal: str, grammar: list[str]) -> None:
    """Each ``}}`` of text outside any placeholder closes nothing: literal prose here."""
    at = literal.find("}}")
    while at >= 0:
        grammar.append(literal[at:][:40])
        at = literal.find("}}", at + 2)


def render_template(template: str, variables: Mapping[str, str]) -> TemplateVerdict:
    """Substitute ``{{name}}`` (spaces inside the braces allowed) strictly (PE-05).

    Every ``{{`` opens a placeholder that the next ``}}`` closes. An unknown name, or a group
    that is no name (``{{}}``, ``{{a b}}``, ``{{1x}}``, a ``{{`` inside the group) is an error that
    names it, and the text is never returned with a raw placeholder. A ``{{`` that nothing
    closes, and a ``}}`` that closes nothing, are literal prose; they and a known placeholder
    spelled with spaces or a dot are the implementation's grammar (``grammar`` lists them).
    """
    unknown: list[str] = []
    malformed: list[str] = []
    grammar: list[str] = []
    out: list[str] = []
    pos = 0
    while True:
        opening = template.find("{{", pos)
        literal = template[pos:] if opening < 0 else template[pos:opening]
        _strays(literal, grammar)
        out.append(literal)
        if opening < 0:
            break
        closing = template.find("}}", opening + 2)
        if closing < 0:  # nothing closes it: literal prose to the end
            grammar.append(template[opening:][:40])
            out.append(template[opening:])
            break
        token = template[opening : closing + 2]
        inner = token[2:-2]
        name = inner.strip()
        pos = closing + 2
        if "{{" in inner or not _NAME.fullmatch(name):
            malformed.append(token)
        elif name not in variables:
            if name not in unknown:
                unknown.append(name)
        else:
            if inner != name or "." in name:  # a spelling the implementation may refuse
                grammar.append(token)
            out.append(variables[name])
    if unknown or malformed:
        return TemplateVerdict(None, ErrorCode.INVALID_TEMPLATE, tuple(unknown), tuple(malformed),
                               tuple(grammar))
    return TemplateVerdict("".join(out), grammar=tuple(grammar))


# The one "omitted" marker of the spec (a private sentinel here made ``ABSENT`` from callers
# such as the judge read as an explicit persona).
_ABSENT = ABSENT


def compose_persona(
    deployment: str | None, preset: str | None = None, child: object = _ABSENT
) -> str | None:
    """The persona template a child's prompt carries (PE-01..PE-03).

    An explicit child persona wins, even ``""`` (PE-03); without one the preset's persona is the
    composed persona, else the deployment's (PE-02). ``None`` means no persona section at all.
    """
    if child is not _ABSENT and child is not None:
        return str(child)
    return preset if preset is not None else deployment


@dataclass(frozen=True)
class Section:
    name: str
    text: str


def resolve_sections(
    inherited: Sequence[Section], scoped: Sequence[Section]
) -> tuple[Section, ...]:
    """Most specific wins (PE-01): a scope's section replaces the inherited one of the same name
    in the same position; scope-only sections follow in registration order."""
    mine = {s.name: s for s in scoped}
    used: set[str] = set()
    out: list[Section] = []
    for section in inherited:
        if section.name in mine:
            out.append(mine[section.name])
            used.add(section.name)
        else:
            out.append(section)
    out.extend(s for s in scoped if s.name not in used)
    return tuple(out)


class NamedText(Protocol):
    """Anything shaped like a section (the oracle's, or a driver protocol message)."""

    @property
    def name(self) -> str: ...

    @property
    def text(self) -> str: ...


def assemble_system_prompt(sections: Sequence[NamedText]) -> str:
    """The system text of a model request: non-empty section texts joined by a blank line.

    PE-04 compares this with what the gateway recorded: one channel, no second persona text.
    """
    return "\n\n".join(s.text for s in sections if s.text)
