"""The JSON codec of the HTTP wire (:mod:`.wire`): what both ends write and read.

Numbers follow the DE domain decision (docs/rules.md, DE-05..DE-08): the reader parses JSON as
JavaScript's ``JSON.parse`` would (``-0`` stays negative zero, integers beyond 2^53 become
doubles) and refuses the non-standard tokens ``NaN``/``Infinity``; the kit sends such values as
the tagged form ``{"$number": "NaN" | "Infinity" | "-Infinity"}`` (docs/driver-api.md,
"Conventions"). A certification encodes and decodes every one of its thousands of requests and
answers, so the common cases take short paths (the C encoder and scanner, made once; no walk for
tags in a text without ``$``) that give what the general rules give.
"""

from __future__ import annotations

import json
import math
import types
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import to_json as to_json_bytes

from ..core.protocol import SENT_WHEN_SET

#: Types whose values travel as they are (exact types: an Enum of str is not one).
_PLAIN = frozenset({str, int, bool, type(None)})
_TAG = "$number"
_LITERAL = "$literal"
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def to_json(value: Any) -> Any:
    """A Python value (pydantic models included) as a JSON-ready value of the wire.

    Non-finite floats become the tagged form; an object that would read as a tag is escaped as
    ``{"$literal": {...}}``. A model's raw (``Any``) field whose default is ``None``, and one
    marked :data:`~..core.protocol.SENT_WHEN_SET`, is left out when the caller did not set it
    (absent differs from ``null``); every other field travels, defaults included.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else _tagged(value)
    if kind is dict:
        return _object(value)
    if kind is list or kind is tuple:
        return [item if type(item) in _PLAIN else to_json(item) for item in value]
    plan = _PLANS.get(kind)
    if plan is not None:
        return _model(value, plan)
    # the rarer kinds, and a model class seen for the first time
    if isinstance(value, BaseModel):
        return _model(value, _plan(kind))
    if isinstance(value, Enum):
        return to_json(value.value)
    if isinstance(value, float) and not math.isfinite(value):
        return _tagged(value)
    if isinstance(value, (str, int, float)):
        return value
    if isinstance(value, Mapping):
        return _object(value)
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    raise TypeError(f"{type(value).__name__} values cannot travel on the JSON wire: {value!r}")


#: Per model class, its fields in order, each with whether it is a raw (``Any``) field whose
#: default is None (left out unless set): :func:`to_json` encodes thousands of models a run.
_PLANS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _plan(kind: Any) -> tuple[tuple[str, bool], ...]:
    plan = tuple((name, field.default is None and (field.annotation is Any or _when_set(field)))
                 for name, field in kind.model_fields.items())
    _PLANS[kind] = plan
    return plan


def _when_set(field: Any) -> bool:
    extra = field.json_schema_extra
    return isinstance(extra, dict) and extra.get(SENT_WHEN_SET) is True


def _model(value: Any, plan: tuple[tuple[str, bool], ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, raw in plan:
        if raw and name not in value.model_fields_set:
            continue
        item = getattr(value, name)
        out[name] = item if type(item) in _PLAIN else to_json(item)
    return out


def _object(value: Mapping[Any, Any]) -> dict[str, Any]:
    items = {}
    for key, item in value.items():
        if type(key) is not str and not isinstance(key, str):
            raise TypeError(f"object keys must be strings on the JSON wire, not {key!r}")
        items[key] = item if type(item) in _PLAIN else to_json(item)
    if len(items) == 1 and next(iter(items)) in (_TAG, _LITERAL):
        return {_LITERAL: items}
    return items


def _tagged(value: float) -> dict[str, str]:
    return {_TAG: "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}


def from_json(value: Any) -> Any:
    """Undo :func:`to_json`'s tags on a parsed JSON value; a malformed tag is a ValueError."""
    if isinstance(value, dict):
        if len(value) == 1:
            key, inner = next(iter(value.items()))
            if key == _TAG:
                if not isinstance(inner, str) or inner not in _NON_FINITE:
                    raise ValueError(
                        f'{{"$number": {json.dumps(inner)}}} is not a tagged number: use '
                        '"NaN", "Infinity" or "-Infinity"'
                    )
                return _NON_FINITE[inner]
            if key == _LITERAL:
                if not isinstance(inner, dict):
                    raise ValueError('"$literal" must wrap a JSON object')
                return {k: from_json(v) for k, v in inner.items()}
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(item) for item in value]
    return value


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _c_encoder() -> Callable[[Any], str]:
    """``_ENCODER.encode`` without remaking the C encoder on every call (the json module makes
    one per call; a certification encodes thousands of small bodies): the same text, the same
    errors (TypeError for what JSON cannot carry, ValueError for a non-finite number)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    try:
        encoder = make(None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",",
                       False, False, False) if make is not None else None
    except TypeError:  # another signature: keep the json module's own path
        encoder = None
    if encoder is None:
        return _ENCODER.encode

    def encode(value: Any) -> str:
        return "".join(encoder(value, 0))

    return encode


_encode = _c_encoder()


def dumps(value: Any) -> bytes:
    """Encode for the wire (UTF-8, no NaN/Infinity tokens, ``-0.0`` kept)."""
    return _encode(to_json(value)).encode("utf-8")


class Malformed(ValueError):
    """The text is not standard JSON (or carries a malformed tag)."""


def _refuse_constant(token: str) -> Any:
    raise Malformed(
        f"{token} is not a JSON number: send the tagged form {{\"$number\": \"{token}\"}}"
    )


def _read_int(token: str) -> int | float:
    number = int(token)
    if number == 0 and token.startswith("-"):
        return -0.0  # JavaScript reads -0 as negative zero
    if abs(number) > 2**53:
        return float(number)  # beyond 2^53 JavaScript keeps the nearest double
    return number


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all distinct. JSON leaves a repeated key's meaning open
    (RFC 8259, section 4): one reader keeps the first value, another the last, so a reply
    that repeats a key is ambiguous and is refused rather than read one way."""
    value = dict(pairs)
    if len(value) != len(pairs):
        keys = [key for key, _ in pairs]
        repeated = next(key for i, key in enumerate(keys) if key in keys[:i])
        raise Malformed(f"the key {repeated!r} appears twice in one object: send each key once")
    return value


_DECODER = json.JSONDecoder(parse_int=_read_int, parse_float=float,
                            parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)


_scan: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def _parse(text: str) -> Any:
    """``_DECODER.decode(text)``, with its common case (a value from the first to the last
    character) read by the C scanner directly."""
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        end = -1
    if end != len(text):  # whitespace around the value, or not JSON: the full path says which
        return _DECODER.decode(text)
    return value


def loads(data: bytes | str) -> Any:
    """Decode wire text as JavaScript reads JSON numbers, then undo the tags.

    Raises :class:`Malformed` for anything that is not standard JSON: bad UTF-8, a syntax
    error, the tokens ``NaN``/``Infinity``/``-Infinity``, a malformed tag, and for JSON whose
    meaning is ambiguous: an object that repeats a key.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        parsed = _parse(text)
        if "$" not in text and "\\u0024" not in text:
            return parsed  # no key can be a tag ($ written raw or escaped): nothing to undo
        return from_json(parsed)
    except Malformed:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Malformed(str(exc)) from exc


def validation_summary(error: ValidationError, limit: int = 5) -> str:
    """A short human summary of a pydantic error: ``loc: message`` pairs."""
    parts = []
    for item in error.errors()[:limit]:
        loc = ".".join(str(p) for p in item["loc"]) or "(body)"
        parts.append(f"{loc}: {item['msg']}")
    more = error.error_count() - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def validate(adapter: TypeAdapter[Any], value: Any) -> Any:
    """``value`` (parsed by :func:`loads`) as the adapter's type, with JSON's types kept apart.

    The JSON types are checked strictly first (``"true"`` is no boolean, ``"1"`` no integer, as
    in the OpenAPI document); the value is then built leniently so that raw fields keep what
    :func:`loads` read (``-0.0``, doubles beyond 2^53, non-finite numbers).

    An answer is often the same text again (a view read after a change that left it as it
    was): its strict check is not repeated, and a result nobody can change (strings, enums,
    frozen models of such fields, a list of them handed out as a new list) is not built again.
    """
    text = _text(value)
    seen = (id(adapter), text)
    known = _SEEN.get(seen)
    if known is None:
        adapter.validator.validate_json(text, strict=True)
    elif known[1] is not _UNSHARED:
        result = known[1]
        return list(result) if type(result) is list else result
    result = adapter.validator.validate_python(value)
    if len(_SEEN) >= _SEEN_KEPT:
        _SEEN.clear()
    # the adapter is kept alive with its entry: its id stays its own
    kept = _UNSHARED if not _shareable(adapter) else list(result) if type(
        result) is list else result  # the caller's list is its own to change
    _SEEN[seen] = (adapter, kept)
    return result


#: Per (adapter, text) whose JSON types passed the strict check: the adapter, and the result
#: built from the text when it may be handed out again (else _UNSHARED); at most _SEEN_KEPT.
_SEEN: dict[tuple[int, bytes], tuple[TypeAdapter[Any], Any]] = {}
_SEEN_KEPT = 4096
_UNSHARED: Any = object()
#: Per adapter (by id, the adapter kept alive beside), whether its results may be shared.
_SHAREABLE: dict[int, tuple[TypeAdapter[Any], bool]] = {}


def _shareable(adapter: TypeAdapter[Any]) -> bool:
    known = _SHAREABLE.get(id(adapter))
    if known is None:
        kind = getattr(adapter, "_type", None)
        outer = typing.get_origin(kind) is list and len(typing.get_args(kind)) == 1
        known = _SHAREABLE[id(adapter)] = (adapter, _immutable(
            typing.get_args(kind)[0] if outer else kind, ()))
    return known[1]


def _immutable(kind: Any, within: tuple[Any, ...]) -> bool:
    """Whether every value of the type ``kind`` is immutable: built once, it may be shared."""
    if kind in (str, int, float, bool, type(None)) or kind is None:
        return True
    if isinstance(kind, type) and issubclass(kind, Enum):
        return True
    origin = typing.get_origin(kind)
    if origin is typing.Literal:
        return True
    if origin is typing.Union or origin is types.UnionType:
        return all(_immutable(arg, within) for arg in typing.get_args(kind))
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        if kind in within:
            return True  # a recursive model: decided by its other fields
        return bool(kind.model_config.get("frozen")) and all(
            _immutable(field.annotation, (*within, kind)) for field in kind.model_fields.values())
    return False  # lists, dicts, raw (Any) values, and whatever else: built afresh each time


def _text(value: Any) -> bytes:
    """The wire text of a value :func:`loads` read (plain JSON values): encoded as it is unless
    it holds a non-finite number or an object that reads as a tag (then :func:`dumps`)."""
    try:
        text = to_json_bytes(value)
    except (TypeError, ValueError):  # a lone surrogate, or what is not a plain JSON value
        return dumps(value)
    if b"$" in text or b"NaN" in text or b"Infinity" in text:  # a tag or a non-finite
        return dumps(value)  # number (or a string holding one of these: the same text then)
    return text
