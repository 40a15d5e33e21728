"""A conforming target that words every refusal its own way, with the same codes (BREAKS None).

Each error keeps its stable ``code`` and ``details`` but says something else: a short phrase of
its own per code, then the things the refusal is about (the offending names, the capability,
the placeholders) each in double quotes, in another order than the reference's message. Rules
fix codes and what an error must name, never its sentences: a certifier that matches the
reference's wording gives a false failure here.
"""

from __future__ import annotations

import re
from typing import Any

from examples.providers._parts import rewording_target
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


def provider() -> Any:
    return rewording_target("other-refusal-wording", lambda deployment, exc: reworded(exc))
