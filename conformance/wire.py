"""The HTTP wire of the driver protocol: the route table and the JSON codec.

Both ends of the HTTP transport (:mod:`.http_target` in the kit, :mod:`.http_server` in front of
an in-process target) and the OpenAPI document (:mod:`.openapi`) read this module, and this
module reads :class:`~.target.Deployment` itself: one route per method, its arguments and result
taken from the method's signature and type hints. A method added to the protocol is a route
without further work, so the wire cannot drift from the Python protocol (DESIGN.md, "How the kit
observes a target"; docs/driver-api.md is the prose).

Numbers follow the DE domain decision (RULES.md, DE-05..DE-08): the reader parses JSON as
JavaScript's ``JSON.parse`` would (``-0`` stays negative zero, integers beyond 2^53 become
doubles) and refuses the non-standard tokens ``NaN``/``Infinity``; the kit sends such values as
the tagged form ``{"$number": "NaN" | "Infinity" | "-Infinity"}``.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from subagent_tck.spec import ErrorCode, TckError

from .protocol import PROTOCOL_VERSION, DeploymentConfig, TargetInfo
from .target import Deployment

PREFIX = "/v1"
#: The largest body either end reads (requests and answers); beyond it the body is refused.
MAX_BODY = 8 * 1024 * 1024
#: The first stdout line of a ``cmd:`` adapter: this word, a space, its base URL.
READY_WORD = "SUBAGENT_TCK_READY"
#: Header naming the driver protocol version, sent on every answer of the reference server.
VERSION_HEADER = "x-subagent-tck-protocol"

INFO_PATH = f"{PREFIX}/info"
DEPLOYMENTS_PATH = f"{PREFIX}/deployments"
DEPLOYMENT_PATH = f"{PREFIX}/deployments/{{id}}"
#: The body field of ``POST /v1/deployments`` that carries the model gateway's base URL.
GATEWAY_FIELD = "gatewayUrl"

#: Deployment methods that only observe and never wait for the model: the fuzz compares them
#: around a refusal, and the reference server answers them without a thread switch.
OBSERVERS = frozenset(
    {"root", "sessions", "agents", "events", "invocations", "observe", "view", "tool_schemas",
     "lookup", "sdk_bindings", "prompt", "providers"}
)

_TAG = "$number"
_LITERAL = "$literal"
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


# --- JSON codec ------------------------------------------------------------------------


def camel(name: str) -> str:
    """``header_depth`` -> ``headerDepth`` (wire names are camelCase)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def kebab(name: str) -> str:
    """``register_tool`` -> ``register-tool`` (path segments are kebab-case)."""
    return name.replace("_", "-")


def to_json(value: Any) -> Any:
    """A Python value (pydantic models included) as a JSON-ready value of the wire.

    Non-finite floats become the tagged form; an object that would read as a tag is escaped as
    ``{"$literal": {...}}``. A model's raw (``Any``) field whose default is ``None`` is left out
    when the caller did not set it (absent differs from ``null``); every other field travels,
    defaults included.
    """
    if isinstance(value, BaseModel):
        out: dict[str, Any] = {}
        for name, field in type(value).model_fields.items():
            if (field.annotation is Any and field.default is None
                    and name not in value.model_fields_set):
                continue
            out[name] = to_json(getattr(value, name))
        return out
    if isinstance(value, Enum):
        return to_json(value.value)
    if isinstance(value, float) and not math.isfinite(value):
        return {_TAG: "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, Mapping):
        items = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"object keys must be strings on the JSON wire, not {key!r}")
            items[key] = to_json(item)
        if len(items) == 1 and next(iter(items)) in (_TAG, _LITERAL):
            return {_LITERAL: items}
        return items
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    raise TypeError(f"{type(value).__name__} values cannot travel on the JSON wire: {value!r}")


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


def dumps(value: Any) -> bytes:
    """Encode for the wire (UTF-8, no NaN/Infinity tokens, ``-0.0`` kept)."""
    return json.dumps(to_json(value), ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


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


def loads(data: bytes | str) -> Any:
    """Decode wire text as JavaScript reads JSON numbers, then undo the tags.

    Raises :class:`Malformed` for anything that is not standard JSON: bad UTF-8, a syntax
    error, the tokens ``NaN``/``Infinity``/``-Infinity``, a malformed tag.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        parsed = json.loads(text, parse_int=_read_int, parse_float=float,
                            parse_constant=_refuse_constant)
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
    """
    adapter.validate_json(dumps(value), strict=True)
    return adapter.validate_python(value)


# --- the route table -------------------------------------------------------------------


_NO_DEFAULT = inspect.Parameter.empty


@dataclass(frozen=True)
class Argument:
    name: str  # the Python keyword
    wire: str  # the JSON body key
    annotation: Any
    adapter: TypeAdapter[Any]
    default: Any = _NO_DEFAULT

    @property
    def required(self) -> bool:
        return self.default is _NO_DEFAULT


@dataclass(frozen=True)
class Operation:
    """One Deployment method on the wire: ``POST /v1/deployments/{id}/<segment>``."""

    name: str
    segment: str
    arguments: tuple[Argument, ...]
    result: Any
    result_adapter: TypeAdapter[Any]
    doc: str

    @property
    def path(self) -> str:
        return f"{DEPLOYMENT_PATH}/{self.segment}"

    @property
    def observes(self) -> bool:
        return self.name in OBSERVERS

    @property
    def needs_body(self) -> bool:
        """False when every argument is optional: then the body may be left out."""
        return any(a.required for a in self.arguments)

    @property
    def returns_nothing(self) -> bool:
        return self.result is type(None)

    @functools.cached_property
    def signature(self) -> inspect.Signature:
        """The Python call's signature (made once: a certification binds thousands of calls)."""
        params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
        params += [
            inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=a.default)
            for a in self.arguments
        ]
        return inspect.Signature(params)

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The request body for a Python call (defaults applied, so the wire is explicit)."""
        bound = self.signature.bind(None, *args, **kwargs)
        bound.apply_defaults()
        return {a.wire: bound.arguments[a.name] for a in self.arguments}

    def decode_arguments(self, body: Any) -> dict[str, Any]:
        """Python keyword arguments from a parsed request body; refusals are INVALID_REQUEST."""
        if not isinstance(body, dict):
            raise TckError(ErrorCode.INVALID_REQUEST,
                           f"the body of {self.segment} must be a JSON object of its arguments")
        known = {a.wire: a for a in self.arguments}
        unknown = sorted(set(body) - set(known))
        if unknown:
            raise TckError(
                ErrorCode.INVALID_REQUEST,
                f"{self.segment} takes no argument(s) {', '.join(unknown)}; it takes "
                f"{', '.join(known) or 'none'}",
                {"unknown": unknown},
            )
        kwargs: dict[str, Any] = {}
        for argument in self.arguments:
            if argument.wire not in body:
                if argument.required:
                    raise TckError(ErrorCode.INVALID_REQUEST,
                                   f"{self.segment} needs the argument {argument.wire!r}")
                continue
            try:
                kwargs[argument.name] = validate(argument.adapter, body[argument.wire])
            except ValidationError as exc:
                raise TckError(
                    ErrorCode.INVALID_REQUEST,
                    f"{self.segment}: argument {argument.wire!r} is malformed: "
                    f"{validation_summary(exc)}",
                ) from None
        return kwargs

    def decode_result(self, value: Any) -> Any:
        """The Python result from a parsed answer; raises ValidationError when it does not fit."""
        return validate(self.result_adapter, value)


def _hint(annotation: Any) -> Any:
    """Undo Python 3.10's implicit ``Optional[...]`` for a ``None`` default (3.11+ dropped it):
    ``Any`` already admits null, and the document must be the same on every Python."""
    if typing.get_origin(annotation) is typing.Union:
        members = typing.get_args(annotation)
        if Any in members and type(None) in members and len(members) == 2:
            return Any
    return annotation


def _operation(name: str, function: Any) -> Operation:
    hints = typing.get_type_hints(function)
    arguments = []
    for parameter in list(inspect.signature(function).parameters.values())[1:]:
        annotation = _hint(hints.get(parameter.name, Any))
        arguments.append(Argument(parameter.name, camel(parameter.name), annotation,
                                  TypeAdapter(annotation), parameter.default))
    result = hints.get("return", type(None))
    result = type(None) if result is None else result
    doc = inspect.getdoc(function) or ""
    return Operation(name, kebab(name), tuple(arguments), result, TypeAdapter(result), doc)


def deployment_operations(protocol: type = Deployment) -> dict[str, Operation]:
    """Every public method of the Deployment protocol but ``close`` (that one is ``DELETE``)."""
    operations = {}
    for name, function in inspect.getmembers(protocol, inspect.isfunction):
        if name.startswith("_") or name == "close":
            continue
        operations[name] = _operation(name, function)
    return operations


OPERATIONS: dict[str, Operation] = deployment_operations()
BY_SEGMENT: dict[str, Operation] = {op.segment: op for op in OPERATIONS.values()}

INFO_ADAPTER: TypeAdapter[TargetInfo] = TypeAdapter(TargetInfo)
CONFIG_ADAPTER: TypeAdapter[DeploymentConfig] = TypeAdapter(DeploymentConfig)


# --- versions --------------------------------------------------------------------------

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?$")


def major(version: str) -> int | None:
    found = _VERSION.match(version.strip()) if isinstance(version, str) else None
    return int(found.group(1)) if found else None


def check_protocol(version: str, where: str) -> None:
    """Refuse a target whose driver protocol major version is not the kit's (exit 3)."""
    ours = major(PROTOCOL_VERSION)
    theirs = major(version)
    if theirs is None:
        raise TckError(
            ErrorCode.PROTOCOL_ERROR,
            f"{where} reports driver protocol {version!r}, which is not a MAJOR.MINOR version; "
            f"this kit speaks {PROTOCOL_VERSION}",
            {"target": version, "kit": PROTOCOL_VERSION},
        )
    if theirs != ours:
        raise TckError(
            ErrorCode.PROTOCOL_ERROR,
            f"{where} speaks driver protocol {version}, this kit speaks {PROTOCOL_VERSION}: "
            f"major versions must match; use a kit release for protocol {theirs}.x or update "
            "the adapter",
            {"target": version, "kit": PROTOCOL_VERSION},
        )


def error_status(code: ErrorCode) -> int:
    """The HTTP status the reference server gives a refusal (the client reads only the code)."""
    if code is ErrorCode.INVALID_REQUEST:
        return 400
    if code is ErrorCode.PROTOCOL_ERROR:
        return 404
    return 422


#: Codes that belong to the kit and the wire, not to a runtime's refusals.
KIT_CODES = frozenset(
    {ErrorCode.USAGE, ErrorCode.TARGET_UNREACHABLE, ErrorCode.PROTOCOL_ERROR, ErrorCode.TIMEOUT}
)
