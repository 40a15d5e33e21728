"""Persona and prompt sections (PE family).

A child persona is an ordinary prompt section named ``deployment:persona-prefix`` registered in
the child's scope; the most specific section of a name wins (PE-01). Persona text is a strict
template: ``{{name}}`` placeholders must be known variables, anything else is an error (PE-05).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from .depth import ABSENT
from .errors import ErrorCode

_TOKEN = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


@dataclass(frozen=True)
class TemplateVerdict:
    """The rendered text, or the code and the placeholders at fault."""

    text: str | None
    code: ErrorCode | None = None
    unknown: tuple[str, ...] = ()
    malformed: tuple[str, ...] = ()

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


def render_template(template: str, variables: Mapping[str, str]) -> TemplateVerdict:
    """Substitute ``{{name}}`` (spaces inside the braces allowed) strictly (PE-05).

    An unknown name, an empty or ill-formed placeholder (``{{}}``, ``{{a b}}``), an unclosed
    ``{{`` or a stray ``}}`` anywhere is an error that names it; the text is never returned with
    a raw placeholder.
    """
    unknown: list[str] = []
    malformed: list[str] = []
    out: list[str] = []
    pos = 0
    for match in _TOKEN.finditer(template):
        literal = template[pos : match.start()]
        if "}}" in literal:  # a stray closing brace pair is as malformed as an unclosed one
            malformed.append(literal[literal.find("}}") :][:40])
        out.append(literal)
        pos = match.end()
        inner = match.group(1).strip()
        if not _NAME.fullmatch(inner) or "{{" in match.group(1):
            malformed.append(match.group(0))
        elif inner not in variables:
            if inner not in unknown:
                unknown.append(inner)
        else:
            out.append(variables[inner])
    rest = template[pos:]
    if "{{" in rest or "}}" in rest:
        malformed.append(rest[rest.find("{{") if "{{" in rest else rest.find("}}") :][:40])
    out.append(rest)
    if unknown or malformed:
        return TemplateVerdict(None, ErrorCode.INVALID_TEMPLATE, tuple(unknown), tuple(malformed))
    return TemplateVerdict("".join(out))


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
