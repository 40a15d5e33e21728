"""The one resolver (TF-12): wire schemas, lookup, execution and ``run_code`` SDK bindings are
all derived from :meth:`Resolver.view`, so they cannot drift apart.

The view agrees with :func:`spec.resolve_view`: admitted globals in registration order, each
global admitted iff every restriction admits it (TF-01, TF-02); scope-local tools added after the
filter, never hidden, shadowing a global of the same name in its place (TF-04, TF-05); then
``run_code`` in ``ptc``/``both`` mode, outside every filter (TF-06). Executing a name outside the
view returns an error result with code ``UNKNOWN_TOOL`` and runs no body.

``run_code`` here is NOT a code interpreter: it takes a tiny call list,
``{"calls": [{"tool": name, "arguments": {...}}, ...]}``, and runs each call through the SDK
bindings of the same scope (a name not bound gives that call an ``UNKNOWN_TOOL`` error result).
Its content is ``{"results": [<tool result JSON>, ...]}``. :meth:`Resolver.run_code` is one
such call as the driver makes it (docs/driver-api.md#run-code).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from subagent_tck.spec import RUN_CODE, ErrorCode, Origin, PresentationMode, TckError

from .registry import ToolRegistry
from .scope import Scope
from .tool import ExecutionContext, ResolvedTool, Tool, ToolResult, ToolSchema

__all__ = ["RUN_CODE_PARAMETERS", "ResolvedTool", "Resolver", "invoke"]

RUN_CODE_PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "calls": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"tool": {"type": "string"}, "arguments": {"type": "object"}},
                "required": ["tool"],
            },
        }
    },
    "required": ["calls"],
}


def invoke(tool: Tool, arguments: Mapping[str, Any], context: ExecutionContext) -> ToolResult:
    """Run a body and turn what it gives (or raises) into a :class:`ToolResult`."""
    try:
        value = tool.body(dict(arguments), context)
    except TckError as exc:
        return ToolResult.error(exc.code.value, exc.message)
    except Exception as exc:  # a failing body is an errored result, never a crash of the turn
        return ToolResult.error(None, f"tool {tool.name!r} failed: {type(exc).__name__}: {exc}")
    return value if isinstance(value, ToolResult) else ToolResult(content=value)


class Resolver:
    """Resolves scopes against the live global registry."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    def view(self, scope: Scope | None) -> tuple[ResolvedTool, ...]:
        """The view of ``scope``; ``None`` is the global view (no restrictions, no locals).

        Every restriction must admit a global (TF-02), so the admitted names are those in every
        ``allow`` list and in no ``deny`` list: one pass over the registry, linear in its size.
        """
        entries = self.registry.entries()
        if scope is None:
            return tuple(entries.values())
        allows = [r.allow for r in scope.restrictions() if r.allow is not None]
        denies = [r.deny for r in scope.restrictions() if r.deny is not None]
        denied = frozenset().union(*denies)
        names: Iterable[str] = entries
        if allows:
            allowed = frozenset.intersection(*allows) - denied
            names = [n for n in entries if n in allowed]
        elif denied:
            names = [n for n in entries if n not in denied]
        local = scope.locals()
        shadows = local.keys() & entries.keys()
        if shadows:
            view = [local[n] if n in shadows else entries[n] for n in names]
        else:
            view = [entries[n] for n in names]
        if local:
            placed = set(names) if shadows else ()
            view.extend(e for n, e in local.items() if n not in placed)
        if scope.mode is not PresentationMode.NATIVE:
            view.append(ResolvedTool(RUN_CODE, Origin.RESERVED, self._run_code_tool(scope)))
        return tuple(view)

    def schemas(self, scope: Scope) -> tuple[ToolSchema, ...]:
        """The wire tool schemas of the scope's next request (``ptc``: only ``run_code``)."""
        view = self.view(scope)
        if scope.mode is PresentationMode.PTC:
            return tuple(e.tool.schema() for e in view if e.origin is Origin.RESERVED)
        return tuple(e.tool.schema() for e in view)

    def lookup(self, scope: Scope | None, name: str) -> ResolvedTool | None:
        for entry in self.view(scope):
            if entry.name == name:
                return entry
        return None

    def sdk_bindings(self, scope: Scope) -> tuple[str, ...]:
        """The names ``run_code`` binds: every visible tool but itself, only in ptc/both."""
        if scope.mode is PresentationMode.NATIVE:
            return ()
        return tuple(e.name for e in self.view(scope) if e.origin is not Origin.RESERVED)

    def execute(
        self, scope: Scope, name: str, arguments: Mapping[str, Any], context: ExecutionContext
    ) -> ToolResult:
        """Execute ``name`` as the scope's model would; outside the view: UNKNOWN_TOOL."""
        entry = self.lookup(scope, name)
        if entry is None:
            return ToolResult.error(
                ErrorCode.UNKNOWN_TOOL.value,
                f"no tool named {name!r} is visible in this scope; call one of its listed tools",
            )
        return invoke(entry.tool, arguments, context)

    # --- run_code ------------------------------------------------------------------------

    def run_code(
        self,
        scope: Scope,
        calls: Sequence[tuple[str, Mapping[str, Any]]],
        context: ExecutionContext,
    ) -> tuple[ToolResult, ...]:
        """One program of SDK calls, ``tools.<name>(arguments)`` each, run by the scope's own
        ``run_code`` tool (the driver's run-code operation, docs/driver-api.md#run-code): one
        result per call, in order. A name the SDK does not bind is UNKNOWN_TOOL and runs no
        body; in ``native`` mode ``run_code`` is not offered, so nothing is bound (TF-12)."""
        entry = next((e for e in self.view(scope) if e.origin is Origin.RESERVED), None)
        if entry is None:
            return tuple(ToolResult.error(
                ErrorCode.UNKNOWN_TOOL.value,
                f"run_code is not offered in {scope.mode.value} mode, so its SDK binds no tool "
                f"(not {name!r}); set the presentation mode to ptc or both",
            ) for name, _ in calls)
        program = {"calls": [{"tool": name, "arguments": dict(args)} for name, args in calls]}
        result = invoke(entry.tool, program, context)
        results = result.content.get("results") if isinstance(result.content, Mapping) else None
        if result.is_error or not isinstance(results, list) or len(results) != len(calls):
            return tuple(result for _ in calls)  # the program failed: every call with it
        return tuple(ToolResult(bool(r.get("isError")), r.get("code"), r.get("content"))
                     for r in results)

    def _run_code_tool(self, scope: Scope) -> Tool:
        def body(arguments: Mapping[str, Any], context: ExecutionContext) -> ToolResult:
            return self._run_calls(scope, arguments, context)

        return Tool(
            RUN_CODE,
            body,
            "Run a list of SDK calls, each {tool, arguments}, against this scope's tools.",
            RUN_CODE_PARAMETERS,
        )

    def _run_calls(
        self, scope: Scope, arguments: Mapping[str, Any], context: ExecutionContext
    ) -> ToolResult:
        calls = arguments.get("calls")
        if not isinstance(calls, list) or not all(
            isinstance(c, Mapping)
            and isinstance(c.get("tool"), str)
            and isinstance(c.get("arguments", {}), Mapping)
            for c in calls
        ):
            return ToolResult.error(
                ErrorCode.INVALID_REQUEST.value,
                'run_code takes {"calls": [{"tool": name, "arguments": {...}}, ...]}',
            )
        bound = set(self.sdk_bindings(scope))
        results: list[dict[str, Any]] = []
        for call in calls:
            name = call["tool"]
            if name not in bound:
                result = ToolResult.error(
                    ErrorCode.UNKNOWN_TOOL.value,
                    f"the run_code SDK binds no tool named {name!r} in this scope",
                )
            else:
                result = self.execute(scope, name, call.get("arguments", {}), context)
            results.append(result.to_json())
        return ToolResult(content={"results": results})
