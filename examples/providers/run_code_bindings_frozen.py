"""run_code keeps the SDK it generated on its first run (breaks TF-12, only through execution).

Generating the code-mode SDK is costly, so this runtime builds a scope's dispatch table the
first time that scope runs a program and reuses it for the agent's lifetime. The bindings it
reports and the prompt's SDK text are regenerated live; the table that programs call is not.
A restriction installed later does not stop a program from running the tool it hides, a global
unregistered later still runs, and one registered later is refused although it is bound.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ExecutionContext, Resolver, Scope, Tool, ToolResult
from subagent_tck.reference.resolver import invoke
from subagent_tck.spec import ErrorCode, Origin

BREAKS = "TF-12"


class FrozenTableResolver(Resolver):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tables: dict[str, dict[str, Tool]] = {}

    def _run_calls(
        self, scope: Scope, arguments: Mapping[str, Any], context: ExecutionContext
    ) -> ToolResult:
        calls = arguments.get("calls")
        if not isinstance(calls, list) or not all(isinstance(c, Mapping) for c in calls):
            return super()._run_calls(scope, arguments, context)
        table = self._tables.get(scope.id)
        if table is None:  # the bug: generated once per scope, never again
            table = {e.name: e.tool for e in self.view(scope) if e.origin is not Origin.RESERVED}
            self._tables[scope.id] = table
        results = []
        for call in calls:
            tool = table.get(call.get("tool"))  # type: ignore[arg-type]
            if tool is None:
                results.append(ToolResult.error(
                    ErrorCode.UNKNOWN_TOOL.value,
                    f"the run_code SDK binds no tool named {call.get('tool')!r}").to_json())
                continue
            results.append(invoke(tool, call.get("arguments", {}), context).to_json())
        return ToolResult(content={"results": results})


def provider() -> Any:
    return reference_target("run-code-bindings-frozen", resolver_class=FrozenTableResolver)
