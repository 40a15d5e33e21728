"""Parts several zoo entries share (not an entry itself: it has no ``provider``).

Each part keeps the reference's behaviour but for one hook an entry overrides with its bug.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceDeployment
from subagent_tck.reference import ExecutionContext, ResolvedTool, Resolver, Scope, ToolResult
from subagent_tck.reference.resolver import invoke
from subagent_tck.spec import Restriction, TckError


class _MisreadScope:
    """A scope as a broken resolver reads it: each restriction passed through ``misread``."""

    def __init__(
        self, scope: Scope, misread: Callable[[Scope, Restriction], Restriction]
    ) -> None:
        self._scope = scope
        self._misread = misread

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scope, name)

    def restrictions(self) -> tuple[Restriction, ...]:
        return tuple(self._misread(self._scope, r) for r in self._scope.restrictions())


class MisreadRestrictionsResolver(Resolver):
    """A resolver whose scope views read each restriction through :meth:`misread` (the global
    view and everything else as the reference does)."""

    def misread(self, scope: Scope, restriction: Restriction) -> Restriction:
        return restriction

    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        if scope is None:
            return super().view(None)
        return super().view(_MisreadScope(scope, self.misread))  # type: ignore[arg-type]


class RegistryDispatchResolver(Resolver):
    """A resolver whose run_code runs a call's registered global body directly when
    :meth:`registry_answers` says so; every other call goes through the reference."""

    def registry_answers(self, name: object, bound: set[str]) -> bool:
        return False

    def _run_calls(
        self, scope: Scope, arguments: Mapping[str, Any], context: ExecutionContext
    ) -> ToolResult:
        calls = arguments.get("calls")
        if not isinstance(calls, list):
            return super()._run_calls(scope, arguments, context)
        bound = set(self.sdk_bindings(scope))
        results = []
        for call in calls:
            name = call.get("tool") if isinstance(call, Mapping) else None
            tool = self.registry.get(name) if isinstance(name, str) else None
            if tool is not None and self.registry_answers(name, bound):
                results.append(invoke(tool, call.get("arguments", {}), context).to_json())
                continue
            one = super()._run_calls(scope, {"calls": [call]}, context)
            results.extend(one.content["results"] if not one.is_error else [one.to_json()])
        return ToolResult(content={"results": results})


class ModelCallResolver(Resolver):
    """A resolver whose ``execute`` can tell the model's own tool calls (they carry the call's
    id) from run_code's SDK calls, which reach it here without one."""

    def _run_calls(
        self, scope: Scope, arguments: Mapping[str, Any], context: ExecutionContext
    ) -> ToolResult:
        inner = ExecutionContext(context.agent, context.signal, context.host)
        return super()._run_calls(scope, arguments, inner)


def rewording_deployment(name: str, reword: Callable[[Any, TckError], TckError],
                         ) -> type[ReferenceDeployment]:
    """A reference deployment (class ``name``) whose every public method raises each error as
    ``reword(deployment, error)`` says: the same error when it returns that, else the one it
    returns (the refusal worded another way, its code kept)."""

    def rewording(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def wrapper(self: ReferenceDeployment, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except TckError as exc:
                reworded = reword(self, exc)
                if reworded is exc:
                    raise
                raise reworded from None

        return wrapper

    methods = {key: rewording(value) for key, value in vars(ReferenceDeployment).items()
               if callable(value) and not key.startswith("_")}
    return type(name, (ReferenceDeployment,), {"__module__": reword.__module__, **methods})
