"""The model's direct call of a name only run_code reaches runs the global body a local shadows
(breaks TF-12).

In ``ptc`` mode the wire carries ``run_code`` alone, and the SDK binds the rest of the view. This
runtime answers a tool call *of the model* whose name is not on the wire from its code-mode
table, which it fills from the global registry: where a scope-local tool shadows a global
(docs/rules.md#TF-05), the call runs the global body the scope replaced. Whether such a call runs
at all is not fixed by TF-12, but what runs must be the view's entry. ``run_code``, lookup, the
bindings, the schemas, the host's ``execute`` and every call of a tool on the wire follow the one
resolver: the checks and the campaign, which forged model calls only of names the scope does
not see, certified it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._parts import ModelCallResolver, reference_target
from subagent_tck.reference import ExecutionContext, Scope, ToolResult
from subagent_tck.reference.resolver import invoke
from subagent_tck.spec import Origin, PresentationMode

BREAKS = "TF-12"


class CodeTableResolver(ModelCallResolver):
    def execute(self, scope: Scope, name: str, arguments: Mapping[str, Any],
                context: ExecutionContext) -> ToolResult:
        entry = self.lookup(scope, name)
        tool = self.registry.get(name)
        model_call = bool(context.call_id)
        if (model_call and scope.mode is PresentationMode.PTC and entry is not None
                and entry.origin is not Origin.RESERVED and tool is not None):
            return invoke(tool, arguments, context)  # the bug: the global, not the view's entry
        return super().execute(scope, name, arguments, context)


def provider() -> Any:
    return reference_target("sdk-only-model-call-runs-global", resolver_class=CodeTableResolver)
