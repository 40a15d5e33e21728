"""The HTTP wire of the driver protocol: the route table (and, from :mod:`.codec`, the JSON
codec both ends use).

Both ends of the HTTP transport (:mod:`.http_target` in the kit, :mod:`.http_server` in front of
an in-process target) and the OpenAPI document (:mod:`.openapi`) read this module, and this
module reads :class:`~.target.Deployment` itself: one route per method, its arguments and result
taken from the method's signature and type hints. A method added to the protocol is a route
without further work, so the wire cannot drift from the Python protocol
(docs/architecture.md; docs/driver-api.md is the prose).
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from subagent_tck.spec import ErrorCode, TckError

from ..core.exitcode import TARGET_CODES
from ..core.protocol import PROTOCOL_VERSION, DeploymentConfig, TargetInfo
from ..core.target import Deployment
from .codec import (
    Malformed,
    dumps,
    from_json,
    loads,
    to_json,
    validate,
    validation_summary,
)

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

#: The operation segment of several operations in one request: ``POST
#: /v1/deployments/{id}/batch`` with ``{"calls": [{"operation": SEGMENT, "arguments": {...}},
#: ...]}``, answered ``{"results": [{"result": ...} | {"error": {code, message, details}}]}``,
#: each entry what the call alone would have answered (docs/driver-api.md#batch). Optional: a
#: target without it answers 404 as for any unknown operation, and is driven call by call.
BATCH_SEGMENT = "batch"
#: The most calls one batch may carry.
MAX_BATCH = 256
#: Deployment methods that only observe and never wait for the model: the fuzz compares them
#: around a refusal.
OBSERVERS = frozenset(
    {"root", "sessions", "agents", "events", "invocations", "observe", "view", "tool_schemas",
     "lookup", "sdk_bindings", "prompt", "providers"}
)

# --- names ------------------------------------------------------------------------


def camel(name: str) -> str:
    """``header_depth`` -> ``headerDepth`` (wire names are camelCase)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def kebab(name: str) -> str:
    """``register_tool`` -> ``register-tool`` (path segments are kebab-case)."""
    return name.replace("_", "-")


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

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The request body for a Python call (defaults applied, so the wire is explicit); a
        call that does not fit the signature is a TypeError, as Python's own binding says."""
        if not args and not kwargs and self._defaults is not None:
            return dict(self._defaults)
        arguments = self.arguments
        if len(args) > len(arguments):
            raise TypeError(f"{self.name}() takes {len(arguments)} arguments but "
                            f"{len(args)} were given")
        given = dict(zip((a.name for a in arguments), args, strict=False))
        for name, value in kwargs.items():
            if name in given:
                raise TypeError(f"{self.name}() got multiple values for argument {name!r}")
            given[name] = value
        if len(given) > len(arguments) or not given.keys() <= self._names:
            unexpected = sorted(set(given) - self._names)
            raise TypeError(f"{self.name}() got unexpected keyword argument(s) "
                            f"{', '.join(map(repr, unexpected))}")
        body = {}
        for argument in arguments:
            if argument.name in given:
                body[argument.wire] = given[argument.name]
            elif argument.required:
                raise TypeError(f"{self.name}() missing required argument {argument.name!r}")
            else:
                body[argument.wire] = argument.default
        return body

    @functools.cached_property
    def _names(self) -> frozenset[str]:
        return frozenset(a.name for a in self.arguments)

    @functools.cached_property
    def empty_body(self) -> bytes | None:
        """The request body of a call without arguments, encoded (None when an argument is
        required): the same bytes as ``dumps(self.bind((), {}))``, made once."""
        return None if self._defaults is None else dumps(self._defaults)

    @functools.cached_property
    def _defaults(self) -> dict[str, Any] | None:
        """The body of a call without arguments (None when an argument is required)."""
        return None if self.needs_body else {a.wire: a.default for a in self.arguments}

    @functools.cached_property
    def _wires(self) -> dict[str, Argument]:
        return {a.wire: a for a in self.arguments}

    def decode_arguments(self, body: Any) -> dict[str, Any]:
        """Python keyword arguments from a parsed request body; refusals are INVALID_REQUEST."""
        if not isinstance(body, dict):
            raise TckError(ErrorCode.INVALID_REQUEST,
                           f"the body of {self.segment} must be a JSON object of its arguments")
        if not body and self._defaults is not None:
            return {}  # no argument given, none required
        unknown = sorted(key for key in body if key not in self._wires)
        if unknown:
            raise TckError(
                ErrorCode.INVALID_REQUEST,
                f"{self.segment} takes no argument(s) {', '.join(unknown)}; it takes "
                f"{', '.join(self._wires) or 'none'}",
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

def batch_calls(body: Any) -> list[tuple[str, Any]]:
    """The ``(segment, arguments)`` of a batch body; a body that is not ``{"calls": [...]}``
    with at most :data:`MAX_BATCH` entries, each ``{"operation": string, "arguments"?:
    object}``, is INVALID_REQUEST as a whole (nothing runs)."""
    calls = body.get("calls") if isinstance(body, dict) and set(body) == {"calls"} else None
    if not isinstance(calls, list):
        raise TckError(ErrorCode.INVALID_REQUEST, 'the body of batch must be {"calls": '
                       '[{"operation": "<segment>", "arguments": {...}}, ...]}')
    if len(calls) > MAX_BATCH:
        raise TckError(ErrorCode.INVALID_REQUEST, f"a batch carries at most {MAX_BATCH} calls, "
                       f"not {len(calls)}: send several")
    out = []
    for index, call in enumerate(calls):
        if (not isinstance(call, dict) or not isinstance(call.get("operation"), str)
                or not set(call) <= {"operation", "arguments"}):
            raise TckError(ErrorCode.INVALID_REQUEST, f"call {index} of the batch is not "
                           '{"operation": "<segment>", "arguments": {...}}')
        out.append((call["operation"], call.get("arguments", {})))
    return out


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
KIT_CODES = TARGET_CODES | {ErrorCode.USAGE}

__all__ = [
    "BATCH_SEGMENT", "BY_SEGMENT", "CONFIG_ADAPTER", "DEPLOYMENTS_PATH", "DEPLOYMENT_PATH",
    "GATEWAY_FIELD", "INFO_ADAPTER", "INFO_PATH", "KIT_CODES", "MAX_BATCH", "MAX_BODY",
    "OBSERVERS", "OPERATIONS", "PREFIX", "READY_WORD", "VERSION_HEADER", "Argument",
    "Malformed", "Operation", "batch_calls", "camel", "check_protocol", "deployment_operations",
    "dumps", "error_status", "from_json", "kebab", "loads", "major", "to_json", "validate",
    "validation_summary",
]
