"""Faults are faults: a broken connection or protocol in the middle of a check is an error of
the target, never an answer a check can judge (docs/certify.md#exit-codes).

A check catches :class:`~subagent_tck.spec.TckError` to judge a refusal: its code, the names it
gives, what was left behind. A reset connection, a body that never ends, JSON nested past the
limit, a reply that is not JSON or repeats a key all arrive as a ``TckError`` too, with a code of
:data:`~subagent_tck.conformance.core.exitcode.TARGET_CODES`; read as a refusal, such a fault
would become "refused with the wrong code", a rule failure (exit 1) the target may not have.
:func:`guard` wraps each deployment a check is given so that a fault leaves every operation as
:class:`TargetFault`, which no ``except TckError`` (nor ``except Exception``) in a check can
take for an answer; the check ends there and :func:`~.check_run.run_check` records the error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from subagent_tck.spec import ErrorCode, TckError

from ..core.exitcode import TARGET_CODES
from ..core.target import Deployment

#: Operations left unguarded: closing is best effort once the verdict is made, and an older
#: adapter without a run-code route answers it off-protocol, which the run_code check reads
#: as "not expressible" (docs/driver-api.md#run-code).
_UNGUARDED = frozenset({"close"})
_ROUTE_PROBES = frozenset({"run_code"})


class TargetFault(BaseException):
    """The target broke the connection or the protocol during ``operation``. A BaseException,
    so that it passes through a check's own handlers and Hypothesis's engine untouched: no
    property shrinks over a broken target."""

    def __init__(self, operation: str, error: TckError) -> None:
        super().__init__(f"{operation}: {error.message}")
        self.operation = operation
        self.error = error


def is_fault(exc: TckError) -> bool:
    return exc.code in TARGET_CODES


def _guarded(operation: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TckError as exc:
            if not is_fault(exc):
                raise
            if operation in _ROUTE_PROBES and exc.code is ErrorCode.PROTOCOL_ERROR:
                raise
            raise TargetFault(operation, exc) from exc

    call.__name__ = getattr(function, "__name__", operation)
    call.__doc__ = getattr(function, "__doc__", None)
    return call


class _Guard:
    """A deployment whose operations raise :class:`TargetFault` on a fault."""

    def __init__(self, deployment: Deployment) -> None:
        self._deployment = deployment
        #: name -> (the function it was, its instance, the guarded callable): a check calls
        #: the same operations thousands of times, and wrapping each call anew was 2% of a
        #: certification; a name whose function changed is wrapped again
        self._kept: dict[str, tuple[Any, Any, Callable[..., Any]]] = {}

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._deployment, name)
        if name in _UNGUARDED or name.startswith("_") or not callable(value):
            return value
        function, owner = getattr(value, "__func__", value), getattr(value, "__self__", None)
        kept = self._kept.get(name)
        if kept is not None and kept[0] is function and kept[1] is owner:
            return kept[2]
        guarded = _guarded(name, value)
        self._kept[name] = (function, owner, guarded)
        return guarded

    def __repr__(self) -> str:
        return repr(self._deployment)


def guard(deployment: Deployment) -> Deployment:
    """``deployment`` with every operation but ``close`` guarded (see the module's text)."""
    return cast(Deployment, _Guard(deployment))


def deploy_guarded(function: Callable[[], Deployment]) -> Deployment:
    """Run a target's ``deploy``: a fault there is a :class:`TargetFault` too."""
    return guard(_guarded("deploy", function)())
