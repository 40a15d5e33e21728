"""A target's answer "this runtime cannot express that operation" (``UNSUPPORTED_OPERATION``,
docs/driver-api.md#unsupported-operations).

Some runtimes have no counterpart for an operation a rule's scenario needs: no live restriction
of a running agent, no scope-local tools, no ``run_code``, no stored session headers, no cold
resume. Such a target answers the operation with ``UNSUPPORTED_OPERATION``; the check that
asked stops there, and each of its rules not already failed is not applicable, with the
reason (docs/certify.md#reading-a-certificate). Only the **optional** operations below may be
answered so, and the kit decides which call that was (from the call it made, never from the
target's words): a target that answers it for a core operation (a native deployment,
``root``, a start from the root, a view, ...) is not excused, and the check reports an error
naming the operation.

:func:`guard` wraps a deployment so that its calls raise :class:`Unsupported` or
:class:`CoreRefused` instead of the target's ``TckError``: neither is a ``TckError``, so no
check's ``except TckError`` (or ``expect_error``) can take the answer for a refusal it judges.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable, Mapping
from typing import Any, cast

from subagent_tck.spec import ErrorCode, PresentationMode, TckError

from .protocol import AgentRef, StartRequest
from .target import Deployment

#: Longest piece of the target's message kept in a reason (the whole is in no verdict).
MAX_MESSAGE_CHARS = 500

_RUN_CODE = "run_code (the ptc and both presentation modes)"
_RESTRICTIONS = "live tool restrictions of a running agent"
_PROVIDERS = "removing and adding providers while a deployment runs"
_POLICIES = "spawn policies installed on a running agent's scope"

#: Operations a target may answer with UNSUPPORTED_OPERATION whatever their arguments, and what
#: a target that does cannot express (wire names, docs/driver-api.md#routes).
OPTIONAL: dict[str, str] = {
    "create-agent": "top-level agents with a stored or runtime delegation depth",
    "put-session-header": "writable session headers",
    "resume": "cold resume of a stored session",
    "install-restriction": _RESTRICTIONS,
    "dispose-restriction": _RESTRICTIONS,
    "install-spawn-policy": _POLICIES,
    "dispose-spawn-policy": _POLICIES,
    "execute": "host-driven tool execution outside a model turn",
    "sdk-bindings": _RUN_CODE,
    "run-code": _RUN_CODE,
    "remove-provider": _PROVIDERS,
    "add-provider": _PROVIDERS,
    "abort-turn": "aborting a running turn from the host",
    # a target shipping the subagent-tool component must have it: ST-08's check of that tool
    # fails the answer (docs/driver-api.md#unsupported-operations)
    "set-runtime-context": "switching off the context notices a runtime gives its agents",
}

#: Operations that are optional only with some arguments (the rest of them is core): what the
#: call then asks for, or None for a core call.
Condition = Callable[[Mapping[str, Any], "str | None"], "str | None"]


def _mode(arguments: Mapping[str, Any], root: str | None) -> str | None:
    mode = arguments.get("mode")
    if isinstance(mode, PresentationMode) and mode is not PresentationMode.NATIVE:
        return f"the {mode.value} presentation mode, which needs run_code"
    return None


def _local(arguments: Mapping[str, Any], root: str | None) -> str | None:
    return "scope-local tools" if arguments.get("agent") is not None else None


def _from_child(arguments: Mapping[str, Any], root: str | None) -> str | None:
    request = arguments.get("request")
    parent = request.parent if isinstance(request, StartRequest) else None
    return "a start from an agent other than the root" if parent != root else None


def _child_turn(arguments: Mapping[str, Any], root: str | None) -> str | None:
    return ("a host-driven turn of an agent other than the root"
            if arguments.get("agent") != root else None)


CONDITIONAL: dict[str, Condition] = {
    "deploy": _mode,  # the deployment's initial presentation mode
    "set-mode": _mode,
    "register-tool": _local,
    "unregister-tool": _local,
    "start": _from_child,
    "run-turn": _child_turn,
}


def optional(operation: str, arguments: Mapping[str, Any], root: str | None) -> str | None:
    """What the call ``operation(arguments)`` asks for when a target may answer it with
    UNSUPPORTED_OPERATION, or None for a core call (``root``: the deployment's root agent)."""
    if operation in OPTIONAL:
        return OPTIONAL[operation]
    condition = CONDITIONAL.get(operation)
    return condition(arguments, root) if condition is not None else None


def _clipped(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE_CHARS else message[:MAX_MESSAGE_CHARS] + "…"


class Unsupported(Exception):
    """The target cannot express an optional operation a check needed: the check stops and
    its rules not already failed are not applicable (``reason``)."""

    def __init__(self, operation: str, what: str, message: str) -> None:
        self.operation, self.what, self.message = operation, what, _clipped(message)
        #: whether what was judged before it stands: set by a property whose earlier cases
        #: ran whole (the case it stopped was taken back already)
        self.settled = False
        super().__init__(self.reason)

    @property
    def reason(self) -> str:
        """The not-applicable reason: the kit's words, then the target's (untrusted) text."""
        return f"the target cannot express {self.operation} ({self.what}): {self.message}"


class CoreRefused(Exception):
    """The target answered UNSUPPORTED_OPERATION for a core operation: an error of the check
    (never not-applicable), naming the operation."""

    def __init__(self, operation: str, message: str) -> None:
        self.operation, self.message = operation, _clipped(message)
        super().__init__(
            f"the target answered UNSUPPORTED_OPERATION for {operation}, an operation every "
            "target must support (docs/driver-api.md#unsupported-operations), so this check "
            f"could not run: {self.message}")


def answer(exc: TckError, operation: str, arguments: Mapping[str, Any],
           root: str | None) -> Exception:
    """What a refusal of ``operation(arguments)`` becomes: :class:`Unsupported` or
    :class:`CoreRefused` for UNSUPPORTED_OPERATION, else ``exc`` itself."""
    if exc.code is not ErrorCode.UNSUPPORTED_OPERATION:
        return exc
    what = optional(operation, arguments, root)
    return CoreRefused(operation, exc.message) if what is None else \
        Unsupported(operation, what, exc.message)


def _wire(name: str) -> str:
    return name.replace("_", "-")


#: The Deployment protocol's operations (Python names), as the guard wraps them.
OPERATIONS = tuple(name for name, _ in inspect.getmembers(Deployment, inspect.isfunction)
                   if not name.startswith("_") and name != "close")
_OPERATION_NAMES = frozenset(OPERATIONS)


class _Guarded:
    """A deployment whose operations turn UNSUPPORTED_OPERATION into :class:`Unsupported` or
    :class:`CoreRefused` (see :func:`guard`); other attributes are the deployment's."""

    def __init__(self, deployment: Deployment) -> None:
        self._deployment = deployment
        self._root: str | None = None

    def __getattr__(self, name: str) -> Any:
        # An operation is wrapped at its first use and kept (a deployment is made for every
        # case, most use a few of its operations: wrapping all of them up front was 3% of a
        # certification); only the operations the deployment has (an adapter of an older
        # protocol lacks some: ``getattr(guarded, "run_code", None)`` must still say so).
        if name in _OPERATION_NAMES and callable(getattr(self._deployment, name, None)):
            wrapped = _operation(self, name)
            self.__dict__[name] = wrapped
            return wrapped
        return getattr(self._deployment, name)

    def close(self) -> None:
        self._deployment.close()

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        method = getattr(self._deployment, name)
        try:
            result = method(*args, **kwargs)
        except TckError as exc:
            raise answer(exc, _wire(name), _arguments(name, args, kwargs), self._root) from exc
        if name == "root" and isinstance(result, AgentRef):
            self._root = result.agent
        elif name in ("events", "observe"):
            in_order(result if name == "events" else getattr(result, "events", ()), name)
        return result


def in_order(events: Any, operation: str) -> None:
    """The lifecycle log is one ordered log whose ``seq`` increases (docs/driver-api.md,
    ``events``): a log out of order is an answer off the protocol (PROTOCOL_ERROR, an error of
    the target), never read as an order of events it does not have."""
    seqs = [getattr(e, "seq", None) for e in events or ()]
    for before, after in itertools.pairwise(seqs):
        if not (isinstance(before, int) and isinstance(after, int) and after > before):
            raise TckError(ErrorCode.PROTOCOL_ERROR,
                           f"{operation}: the lifecycle log is out of order: seq {after!r} "
                           f"follows seq {before!r}; the driver API's log is one ordered list "
                           "whose seq increases (docs/driver-api.md#routes)")


@functools.cache
def _signature(name: str) -> inspect.Signature:
    """The Deployment protocol's signature of operation ``name`` (read once: a refused call
    asks for it every time)."""
    return inspect.signature(getattr(Deployment, name))


def _arguments(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments by parameter name (as the Deployment protocol names them)."""
    try:
        bound = _signature(name).bind(None, *args, **kwargs)
    except TypeError:
        return dict(kwargs)
    return {k: v for k, v in bound.arguments.items() if k != "self"}


def _operation(guarded: _Guarded, name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return guarded._call(name, *args, **kwargs)

    call.__name__ = name
    return call


def guard(deployment: Deployment) -> Deployment:
    """``deployment`` with every operation's UNSUPPORTED_OPERATION answer judged."""
    return cast(Deployment, _Guarded(deployment))


def deployed(deploy: Callable[[], Deployment], mode: Any) -> Deployment:
    """``deploy()`` of a deployment in presentation ``mode``, its UNSUPPORTED_OPERATION answer
    judged as a refusal of ``deploy`` (optional only for a mode other than native)."""
    try:
        return deploy()
    except TckError as exc:
        raise answer(exc, "deploy", {"mode": mode}, None) from exc
