"""run_code runs the global body where a scope-local tool shadows it (breaks TF-12, only
through execution).

The view, the wire schemas, lookup and a direct call all give the scope-local tool (TF-05),
and the SDK binds the name once. But the code-mode dispatcher was written against the global
registry and consults the scope's locals only for names the registry lacks: a program calling a
shadowed name runs the global body the scope replaced. A runtime whose code-mode bridge resolves
names in its own order instead of through the one resolver does this.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ExecutionContext, Host, Resolver, Scope, ToolResult
from subagent_tck.reference.resolver import invoke

BREAKS = "TF-12"


class GlobalFirstResolver(Resolver):
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
            if name in bound and tool is not None:  # the bug: the registry is asked first
                results.append(invoke(tool, call.get("arguments", {}), context).to_json())
                continue
            one = super()._run_calls(scope, {"calls": [call]}, context)
            results.extend(one.content["results"] if not one.is_error else [one.to_json()])
        return ToolResult(content={"results": results})


class GlobalFirstHost(Host):
    resolver_class = GlobalFirstResolver


def provider() -> Any:
    return ReferenceTarget(host_class=GlobalFirstHost, name="run-code-runs-global-under-local")
