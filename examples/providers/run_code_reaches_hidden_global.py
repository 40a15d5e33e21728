"""run_code's SDK can still call a filtered global (breaks TF-12, only through execution).

This runtime generates its code-mode SDK with a function for every registered tool and filters
only the list it presents: ``sdk_bindings``, the wire schemas, lookup and direct execution all
follow the scope's view, but a program that calls a hidden global by name finds its function
in the generated table and runs the body. A runtime that filters the SDK's type declarations
(what the model reads) but not its dispatch table does this; reading the bindings never shows
it, executing them does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ExecutionContext, Host, Resolver, Scope, ToolResult
from subagent_tck.reference.resolver import invoke

BREAKS = "TF-12"


class FullTableResolver(Resolver):
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
            if name not in bound and tool is not None:  # the bug: the unfiltered table answers
                results.append(invoke(tool, call.get("arguments", {}), context).to_json())
                continue
            one = super()._run_calls(scope, {"calls": [call]}, context)
            results.extend(one.content["results"] if not one.is_error else [one.to_json()])
        return ToolResult(content={"results": results})


class FullTableHost(Host):
    resolver_class = FullTableResolver


def provider() -> Any:
    return ReferenceTarget(host_class=FullTableHost, name="run-code-reaches-hidden-global")
