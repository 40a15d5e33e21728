"""What PE-05 may require of a persona template (docs/rules.md#PE-05, "template grammar").

Every ``{{`` opens a placeholder. ``{{name}}`` (a letter or ``_``, then letters, digits, ``_``)
is the one spelling every implementation must read: known, it is substituted; unknown, it is an
error that names it. A ``{{`` with no ``}}`` after it is malformed: an error. Any other spelling
(spaces inside the braces, dots, an empty or nested group, a stray ``}}``) belongs to the
implementation's own grammar, so a check may only require that it is "substituted or refused,
never sent raw". :func:`classify` splits a template so; :func:`judge_refusal` judges a target's
refusal of one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from subagent_tck.spec import ErrorCode, TckError

from ..check import CheckContext
from ._support import named

_STRICT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Placeholders:
    """The placeholders of one template, by what the rule requires of each."""

    #: ``{{name}}`` spellings whose name is a known variable: must be substituted.
    known: tuple[str, ...]
    #: ``{{name}}`` spellings whose name is not a variable: must be refused, naming it.
    unknown: tuple[str, ...]
    #: ``{{`` without a later ``}}``: malformed, must be refused, naming it.
    unclosed: tuple[str, ...]
    #: Every other spelling: substituted or refused, never sent raw.
    lenient: tuple[str, ...]

    @property
    def must_refuse(self) -> tuple[str, ...]:
        """The placeholders that make the template an error whatever the grammar."""
        return self.unknown + self.unclosed


def _stray(literal: str, lenient: list[str]) -> None:
    """A ``}}`` outside any placeholder opens nothing: the implementation's grammar decides
    whether it is an error (substituted or refused, never sent raw, like a lenient spelling)."""
    if "}}" in literal:
        lenient.append("}}")


def classify(template: str, variables: Mapping[str, str]) -> Placeholders:
    """Split ``template``'s placeholders by what PE-05 requires of each."""
    known: list[str] = []
    unknown: list[str] = []
    unclosed: list[str] = []
    lenient: list[str] = []
    done = 0  # the end of the last placeholder
    pos = template.find("{{")
    while pos >= 0:
        _stray(template[done:pos], lenient)
        end = template.find("}}", pos + 2)
        if end < 0:
            unclosed.append(template[pos:][:40])
            done = len(template)
            break
        token = template[pos : end + 2]
        inner = token[2:-2]
        if _STRICT.fullmatch(inner):
            (known if inner in variables else unknown).append(token)
        else:
            lenient.append(token)
        done = end + 2
        pos = template.find("{{", done)
    _stray(template[done:], lenient)
    return Placeholders(tuple(known), tuple(unknown), tuple(unclosed), tuple(lenient))


def judge_refusal(ctx: CheckContext, exc: TckError, marks: Placeholders, what: str) -> None:
    """A refused template: it had to be refusable (an unknown or unclosed placeholder, or a
    spelling of the implementation's own grammar), with ``INVALID_TEMPLATE`` naming one of
    the placeholders at fault (docs/rules.md#PE-05)."""
    if not marks.must_refuse and not marks.lenient:
        ctx.fail("PE-05", f"{what}: a persona whose placeholders are all known {{{{name}}}}s "
                 "was refused", "accepted, substituted", exc.to_json())
        return
    ctx.expect(
        "PE-05",
        exc.code is ErrorCode.INVALID_TEMPLATE,
        f"{what}: refused with {exc.code.value}",
        ErrorCode.INVALID_TEMPLATE.value,
        exc.to_json(),
    )
    judge_named(ctx, exc.message, marks, what)


def judge_named(ctx: CheckContext, message: str, marks: Placeholders, what: str) -> None:
    """The error names one of the placeholders at fault (an implementation may stop at its
    first; a lenient spelling it refuses is at fault by its grammar)."""
    at_fault = marks.must_refuse or marks.lenient
    ctx.expect(
        "PE-05",
        any(named(token, message) for token in at_fault),
        f"{what}: the error names the placeholder at fault",
        list(at_fault),
        message,
    )
