"""Parts several zoo entries share (not an entry itself: it has no ``provider``).

Each part keeps the reference's behaviour but for one hook an entry overrides with its bug.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget
from subagent_tck.reference import (
    ChildStart,
    ExecutionContext,
    Host,
    ResolvedTool,
    Resolver,
    Scope,
    ToolResult,
)
from subagent_tck.reference.prompt import render_strict
from subagent_tck.reference.resolver import invoke
from subagent_tck.spec import Restriction, TckError


def reference_target(name: str, **hooks: Any) -> ReferenceTarget:
    """The reference as the target ``name``, its host's class-level hooks replaced by an
    entry's: ``child_start_class=``, ``resolver_class=``, ``render_template=`` and the other
    attributes :class:`Host` declares, or ``subagent_tool_class=`` (the one the subagent tool
    looks up on the host)."""
    unknown = sorted(h for h in hooks if h != "subagent_tool_class" and not hasattr(Host, h))
    if unknown:
        raise TypeError(f"the reference Host has no hook {', '.join(unknown)}")
    title = "".join(word.title() for word in name.split("-"))
    return ReferenceTarget(host_class=type(f"{title}Host", (Host,), hooks), name=name)


class MisreadCapStart(ChildStart):
    """A start whose depth decision sees the asked ``maxDepth`` as :meth:`misread_cap` reads
    it (the asked value is restored afterwards); every other step as the reference's."""

    def misread_cap(self, cap: object) -> object:
        return cap

    def decide_depth(self) -> None:
        cap = self.asked["maxDepth"]
        self.asked["maxDepth"] = self.misread_cap(cap)
        try:
            super().decide_depth()
        finally:
            self.asked["maxDepth"] = cap


#: The rules that compare a child's composed prompt with the oracle's: a placeholder left raw
#: in the prompts drawn deployments compose fails each of them.
RAW_PLACEHOLDER_RULES = ("PE-01", "PE-02", "PE-03", "PE-04", "FR-01", "FR-02", "FR-04", "FR-05",
                         "EN-01", "EN-03", "CA-04", "ST-02", "ST-03", "ST-04")


def render_leaving_raw(
    placeholder: str, fill: Callable[[Mapping[str, str], re.Match[str]], str],
) -> Callable[[str, Mapping[str, str], str], str]:
    """A host's ``render_template`` that refuses what the reference refuses, then writes each
    placeholder the pattern ``placeholder`` matches as ``fill(variables, match)`` says (the
    match itself: left raw), and leaves every other placeholder raw."""
    pattern = re.compile(placeholder)

    def render(template: str, variables: Mapping[str, str], what: str) -> str:
        render_strict(template, variables, what)  # unknown or malformed: refused as it should be
        return pattern.sub(lambda match: fill(variables, match), template)

    return render


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


def rewording_target(name: str, reword: Callable[[Any, TckError], TckError],
                     **options: Any) -> ReferenceTarget:
    """The reference as the target ``name`` (``options`` as :class:`ReferenceTarget` takes
    them), whose deployment's every public method raises each error as ``reword(deployment,
    error)`` says: the same error when it returns that, else the one it returns (the refusal
    worded another way, its code kept)."""

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
    deployment = type("RewordingDeployment", (ReferenceDeployment,),
                      {"__module__": reword.__module__, **methods})
    target = type("RewordingTarget", (ReferenceTarget,),
                  {"__module__": reword.__module__, "deployment_class": deployment})
    return target(name=name, **options)
