"""A conforming target that words every refusal its own way, with the same codes (BREAKS None).

Each error keeps its stable ``code`` and ``details`` but says something else: a short phrase of
its own per code, then the things the refusal is about (the offending names, the capability,
the placeholders) each in double quotes, in another order than the reference's message. Rules
fix codes and what an error must name, never its sentences: a certifier that matches the
reference's wording gives a false failure here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget
from subagent_tck.spec import ErrorCode, TckError

BREAKS = None

PHRASES = {
    ErrorCode.UNSUPPORTED_CAPABILITY: "Not offered by this backend",
    ErrorCode.INVALID_TOOL_FILTER: "Tool filter rejected",
    ErrorCode.INVALID_TEMPLATE: "Persona template rejected",
    ErrorCode.INVALID_DEPTH: "Depth value out of range",
    ErrorCode.DEPTH_EXCEEDED: "Too deep",
}
#: What a message is about: quoted parts and ``{{...`` placeholders, whole or unclosed.
_SUBJECT = re.compile(r"'([^']*)'|\"([^\"]*)\"|(\{\{[^}]*(?:\}\})?)")


def reworded(exc: TckError) -> TckError:
    subjects: list[str] = []
    for key in ("offending", "capability", "unknown", "malformed"):
        value = exc.details.get(key)
        subjects += [str(v) for v in value] if isinstance(value, list) else (
            [str(value)] if value is not None else [])
    subjects += [next(g for g in m.groups() if g is not None) for m in _SUBJECT.finditer(
        exc.message)]
    about = ", ".join(f'"{s}"' for s in reversed(dict.fromkeys(subjects)))
    phrase = PHRASES.get(exc.code, f"Refused ({exc.code.value.lower().replace('_', ' ')})")
    return TckError(exc.code, f"{phrase}{': ' + about if about else ''}.", exc.details)


def _reword(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except TckError as exc:
            raise reworded(exc) from None

    return wrapper


class RewordingDeployment(ReferenceDeployment):
    pass


for _name, _value in vars(ReferenceDeployment).items():
    if callable(_value) and not _name.startswith("_"):
        setattr(RewordingDeployment, _name, _reword(_value))


class RewordingTarget(ReferenceTarget):
    deployment_class = RewordingDeployment


def provider() -> Any:
    return RewordingTarget(name="other-refusal-wording")
