"""Assertion fingerprints: which assertion of which check failed, and how, in a form that is
the same at every seed where the target behaves the same (docs/baseline.md#the-fingerprint).

A failure's :class:`Assertion` is made when the check records it (``CheckContext.fail``), where
the kit still knows whether the case was one of the check's fixed cases or a case Hypothesis
drew (and the drawn state, whose values it turns into their role in the case). It has:

- ``check``: the check's stable name;
- ``case``: ``fixed`` (a hand-written case, the same at every seed), ``drawn`` (a case a
  property drew from the seed) or ``campaign`` (the fuzz campaign's finding);
- ``what``: the assertion, in the kit's words: the check's key when it gives one
  (``key=`` of ``CheckContext.expect``/``fail``), else the failure's message, normalised (below);
- ``way``: how it failed: ``refused CODE``, ``accepted`` (a refusal was expected), ``timeout``,
  ``error CODE`` (the connection or the protocol broke), ``crashed``, ``error``, or for a value
  that differs ``differs`` with what differs (``extra`` or ``missing`` items of a list, the
  keys of an object);
- ``expected``: what was expected, reduced to its kind: the refusal codes, ``accepted``, or the
  JSON type (an object with its keys).

The ``fingerprint`` is 12 hex digits of SHA-256 over the rule and those five. What the
normalisation does to a message: the rule's words after ``(the rule: ...)`` go; the kit's own
markers (``[tck:label:N]``), nonces, UUIDs and every run of digits are replaced by a
placeholder; in a drawn case, every bracketed list or object becomes ``[…]``/``{…}`` and every
quoted string its role in the drawn state (``«globals»``) or ``'…'`` unless it is one of the
catalogue's own words (an error code, ``run_code``, a capability...), so that a case drawn from
another seed reads the same. Text a target supplied never enters ``what`` (a refusal's message
is left out: its code is in ``way``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from subagent_tck.spec import (
    PERSONA_SECTION,
    RUN_CODE,
    STRUCTURED_OUTPUT,
    Capability,
    Edition,
    ErrorCode,
    PresentationMode,
    StopReason,
)

Case = Literal["fixed", "drawn", "campaign"]


class Assertion(BaseModel):
    """One failing assertion, as a baseline names it (docs/baseline.md#the-fingerprint)."""

    model_config = ConfigDict(frozen=True)

    fingerprint: str = Field(description="12 hex digits: SHA-256 of rule, check, case, what, "
                             "way and expected")
    check: str
    case: Case = Field(description="fixed: a hand-written case; drawn: a case drawn from the "
                       "seed; campaign: the fuzz campaign's finding")
    what: str = Field(description="the assertion in the kit's words, normalised")
    way: str = Field(description="how it failed: refused CODE, accepted, timeout, error CODE, "
                     "crashed, error, differs ...")
    expected: str = Field(description="the kind of answer expected")

    def summary(self) -> str:
        """``check [case]: what → way`` in one line (kit text and normalised values only)."""
        return f"{self.check} [{self.case}]: {self.what} → {self.way}"


def make(rule: str, check: str, message: str, expected: Any, observed: Any, *, error: bool,
         case: Case = "fixed", state: Any = None, key: str | None = None,
         channels: Sequence[str] = ()) -> Assertion:
    """The assertion of one failure (``state``: the drawn state of a drawn case; ``key``: the
    check's own name for the assertion, which replaces the message; ``channels``: the words of
    the restriction channels the check built cases through, which a drawn case draws like any
    value: docs/driver-api.md#dialect)."""
    roles = dict(_roles(state)) if case == "drawn" else {}
    text = key if key is not None else message
    if case == "drawn":
        text = _channel_roles(text, channels)
    what = normalise(text, drawn=case == "drawn", roles=roles)
    way = _way(message, expected, observed, error)
    wanted = _expected(expected)
    digest = hashlib.sha256("\x1f".join((rule, check, case, what, way, wanted))
                            .encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return Assertion(fingerprint=digest, check=check, case=case, what=what, way=way,
                     expected=wanted)


# --- the message ---------------------------------------------------------------------------

#: What a refusal through a composed channel adds to a drawn case's words: which operation
#: carried the channel (the deployment, the start), as drawn as the channel itself.
_CARRIED = re.compile(r" \(refused with the [a-z ]+\)")


def _channel_roles(text: str, channels: Sequence[str]) -> str:
    """``text`` without the channel a drawn case went through (``through`` and its words,
    longest first, and the operation that refused it): the draw's, like its values."""
    for words in sorted(set(channels), key=len, reverse=True):
        if words:
            text = text.replace(f" through {words}", "").replace(words, "«channel»")
    return _CARRIED.sub("", text)


#: Values of the catalogue's enumerations: a state that holds one drew it from the enumeration
#: (a mode, an edition), so it is the state's wherever it stands, bare words too.
CHOICES = frozenset({*(c.value for c in Capability), *(m.value for m in PresentationMode),
                     *(s.value for s in StopReason), *(e.value for e in Edition)})
#: The words of the catalogue itself: never taken for a drawn value unless drawn as a choice.
OWN_WORDS = frozenset({RUN_CODE, PERSONA_SECTION, STRUCTURED_OUTPUT,
                       *(c.value for c in ErrorCode), *CHOICES})
_CLAUSE = re.compile(r" \(the rule: [^()]*(?:\([^()]*\)[^()]*)*\)")
_MARKER = re.compile(r"\[tck:([^:\]\s]+):\d+\]")
_NONCE = re.compile(r"\bN[0-9a-f]{16}\b")
_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                   r"[0-9a-fA-F]{12}\b")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_SPACE = re.compile(r"\s+")
#: Longest ``what`` kept (a message is a sentence; a longer one is cut, deterministically).
MAX_WHAT = 400


def normalise(text: str, *, drawn: bool = False, roles: Mapping[str, str] | None = None) -> str:
    """``text`` with what varies between seeds and runs replaced (see the module doc)."""
    out = _CLAUSE.sub("", text)
    out = _MARKER.sub(r"[tck:\1]", out)
    out = _NONCE.sub("«nonce»", out)
    out = _UUID.sub("«id»", out)
    if drawn:
        out = _collapse(out, roles or {})
    out = _DIGITS.sub("#", out)
    out = _SPACE.sub(" ", out).strip()
    return out if len(out) <= MAX_WHAT else out[:MAX_WHAT] + "…"


def _quoted_end(text: str, start: int) -> int:
    """The index after the quoted string starting at ``start`` (-1: it is not one)."""
    quote = text[start]
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return -1  # an apostrophe inside a word: the parent's
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            after = text[i + 1:i + 2]
            return i + 1 if not (after.isalnum() or after == "_") else -1
        if text[i] == "\n":
            return -1
        i += 1
    return -1


def _collapse(text: str, roles: Mapping[str, str]) -> str:
    """A drawn case's message: bracketed values ``[…]``/``{…}``, quoted strings their role,
    and a bare word the state drew its role, unless the word is the catalogue's own."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "[{":
            end = _group_end(text, i)
            if end > 0:
                out.append("[…]" if ch == "[" else "{…}")
                i = end
                continue
        if ch in "'\"":
            end = _quoted_end(text, i)
            if end > 0:
                out.append(_quoted(text[i + 1:end - 1], roles))
                i = end
                continue
        out.append(ch)
        i += 1
    return _bare_words("".join(out), roles)


def _group_end(text: str, start: int) -> int:
    """The index after the balanced group opened at ``start`` (quotes respected), or -1."""
    depth = 0
    i = start
    pairs = {"[": "]", "{": "}"}
    stack: list[str] = []
    while i < len(text):
        ch = text[i]
        if ch in "'\"":
            end = _quoted_end(text, i)
            if end > 0:
                i = end
                continue
        if ch in pairs:
            stack.append(pairs[ch])
            depth += 1
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return -1


def _quoted(inner: str, roles: Mapping[str, str]) -> str:
    role = roles.get(inner)
    if role is not None and role.startswith("="):
        return f"«{role[1:]}»"
    if inner in OWN_WORDS:
        return f"'{inner}'"
    return f"«{role}»" if role else "'…'"


_WORD = re.compile(r"(?<![\w«])[^\s,;:()\[\]{}'\"«»]+(?![\w»])")


def _bare_words(text: str, roles: Mapping[str, str]) -> str:
    """Bare words of ``text`` that the state drew, as their role. A word of plain lower-case
    letters is left alone (it may be the kit's own prose: a drawn ``mode`` is not the word
    mode), and so are the catalogue's words."""

    def swap(match: re.Match[str]) -> str:
        found = match.group()
        word = found.rstrip(".")
        role = roles.get(word)
        if role is not None and role.startswith("="):
            return f"«{role[1:]}»" + found[len(word):]
        if role is None or word in OWN_WORDS or re.fullmatch(r"[a-z]+", word):
            return found
        return f"«{role}»" + found[len(word):]

    return _WORD.sub(swap, text) if roles else text


def _roles(state: Any) -> Iterator[tuple[str, str]]:
    """``(value, role)`` for every string of a drawn state, the role being where it sits:
    dataclass fields and mapping keys, joined with ``.``, list positions left out (every
    global is ``globals``); the first place a value is met names it. A drawn enumeration
    value (a presentation mode, as an enum or its string) is one too, and its role is marked
    ``=``: it replaces the catalogue's word wherever it stands (the mode a case drew is not
    the kit's prose)."""
    seen: set[str] = set()
    for value, path in _walk(state, ()):
        word = value.value if isinstance(value, Enum) else value
        if isinstance(word, str) and word and word not in seen:
            seen.add(word)
            role = ".".join(path) or "value"
            chosen = isinstance(value, Enum) or word in CHOICES
            yield word, ("=" + role) if chosen else role


def _walk(value: Any, path: tuple[str, ...]) -> Iterator[tuple[Any, tuple[str, ...]]]:
    if isinstance(value, (Enum, str)):
        yield value, path
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _walk(getattr(value, f.name), (*path, f.name))
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _walk(getattr(value, name), (*path, name))
    elif isinstance(value, Mapping):
        for k, v in value.items():
            name = str(k) if isinstance(k, str) and k.isidentifier() else "key"
            if isinstance(k, str):
                yield k, (*path, "name")
            yield from _walk(v, (*path, name))
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        for item in items:
            yield from _walk(item, path)


# --- the way it failed ---------------------------------------------------------------------

_CODES = re.compile(r"[A-Z][A-Z_]+(?: or [A-Z][A-Z_]+)*")


def _refusal(value: Any) -> str | None:
    """The code of an error body ``{"code": ..., "message": ...}``, or None."""
    if isinstance(value, Mapping) and isinstance(value.get("code"), str) and "message" in value:
        return str(value["code"])
    return None


def _way(message: str, expected: Any, observed: Any, error: bool) -> str:
    code = _refusal(observed)
    if error:
        if code is not None:
            return "timeout" if code == ErrorCode.TIMEOUT.value else f"error {code}"
        if "did not finish within" in message or "deadline" in message:
            return "timeout"
        return "crashed" if "crashed" in message else "error"
    if code is not None:
        return f"refused {code}"
    if isinstance(expected, str) and (_CODES.fullmatch(expected) or expected == "accepted"):
        return "accepted" if expected != "accepted" else "differs"
    return "differs" + _difference(expected, observed)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _difference(expected: Any, observed: Any) -> str:
    """What differs, in words that do not depend on the drawn values: for two lists, whether
    items are missing or extra (or only the order or the count differs); for two objects, the
    keys whose values differ."""
    if isinstance(expected, list) and isinstance(observed, list):
        want = {_canonical(v) for v in expected}
        got = {_canonical(v) for v in observed}
        parts = [w for w, ok in (("missing", want - got), ("extra", got - want)) if ok]
        if parts:
            return ": " + " and ".join(parts)
        return ": order" if len(expected) == len(observed) else ": count"
    if isinstance(expected, Mapping) and isinstance(observed, Mapping):
        keys = sorted(normalise(str(k)) for k in {*expected, *observed}
                      if _canonical(expected.get(k)) != _canonical(observed.get(k)))
        return f": {', '.join(dict.fromkeys(keys))}" if keys else ""
    return ""


def _expected(value: Any) -> str:
    if isinstance(value, str) and (_CODES.fullmatch(value) or value == "accepted"):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        keys = sorted(dict.fromkeys(normalise(str(k)) for k in value))
        return "object (" + ", ".join(keys) + ")"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__
