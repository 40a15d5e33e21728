"""What PE-05 may require of a persona template (docs/rules.md#PE-05, "template grammar").

Every ``{{`` opens a placeholder. ``{{name}}`` (a letter or ``_``, then letters, digits, ``_``)
is the one spelling every implementation must read: known, it is substituted; unknown, it is an
error that names it. A ``{{`` that no later ``}}`` closes and a ``}}`` that closes nothing are
the implementation's grammar: literal prose, sent exactly as written, or an error naming them;
never partly substituted. Any other group (spaces inside the braces, dots, an empty or nested
group) a check uses only to require "substituted or refused, never sent raw".
:func:`classify` splits a template so; :func:`judge_refusal` judges a target's refusal of one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from subagent_tck.spec import ErrorCode, TckError

from ..check import CheckContext
from ._observed import named

_STRICT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Placeholders:
    """The placeholders of one template, by what the rule requires of each."""

    #: ``{{name}}`` spellings whose name is a known variable: must be substituted.
    known: tuple[str, ...]
    #: ``{{name}}`` spellings whose name is not a variable: must be refused, naming it.
    unknown: tuple[str, ...]
    #: Every other group: substituted or refused, never sent raw.
    lenient: tuple[str, ...]
    #: A ``{{`` no later ``}}`` closes (with the rest of the text, which it makes literal) and
    #: a ``}}`` that closes nothing: sent exactly as written, or refused naming them.
    literal: tuple[str, ...] = ()

    @property
    def must_refuse(self) -> tuple[str, ...]:
        """The placeholders that make the template an error whatever the grammar."""
        return self.unknown

    @property
    def refusable(self) -> tuple[str, ...]:
        """Every part a target may refuse the template for, naming it."""
        return self.unknown + self.lenient + self.literal


def _stray(literal: str, found: list[str]) -> None:
    """A ``}}`` outside any placeholder closes nothing: the implementation's grammar."""
    if "}}" in literal:
        found.append("}}")


def classify(template: str, variables: Mapping[str, str]) -> Placeholders:
    """Split ``template``'s placeholders by what PE-05 requires of each."""
    known: list[str] = []
    unknown: list[str] = []
    lenient: list[str] = []
    literal: list[str] = []
    done = 0  # the end of the last placeholder
    pos = template.find("{{")
    while pos >= 0:
        _stray(template[done:pos], literal)
        end = template.find("}}", pos + 2)
        if end < 0:
            literal.append(template[pos:])
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
    _stray(template[done:], literal)
    return Placeholders(tuple(known), tuple(unknown), tuple(lenient), tuple(literal))


def judge_refusal(ctx: CheckContext, exc: TckError, marks: Placeholders, what: str) -> None:
    """A refused template: it had to be refusable (an unknown placeholder, or a part of the
    implementation's own grammar), with ``INVALID_TEMPLATE`` naming one of the parts at fault
    (docs/rules.md#PE-05)."""
    if not marks.refusable:
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
    first; a part of its own grammar it refuses is at fault by that grammar). A literal part
    is named by its first characters: a message quotes a ``{{`` and what follows it."""
    at_fault = marks.refusable
    ctx.expect(
        "PE-05",
        any(named(token, message) or named(token[:12].strip(), message) for token in at_fault),
        f"{what}: the error names the placeholder at fault",
        list(at_fault),
        message,
    )
