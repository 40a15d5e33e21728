"""The model's tool calls are checked against the deployment's default mode, not the agent's
(breaks TF-12).

An agent's presentation mode is its own (``set-mode``): its view, wire schemas, SDK bindings,
lookup, the host's ``execute`` and ``run_code`` follow it here. But the turn loop decides which
of the model's tool calls were offered by the deployment's default mode: in a deployment whose
default is ``ptc`` (only ``run_code`` on the wire) it refuses every other tool the model calls
with ``UNKNOWN_TOOL``, even for an agent set to ``native`` or ``both``, whose request offered
that tool. In ``ptc`` itself such a refusal is allowed (a name missing from the schemas). The
checks that let a model call tools always ran it in the deployment's own mode, and the campaign
forges no model calls: they certified it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._parts import ModelCallResolver
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import ExecutionContext, Host, Scope, ToolResult
from subagent_tck.spec import RUN_CODE, ErrorCode, PresentationMode

BREAKS = "TF-12"


class DefaultModeLoopResolver(ModelCallResolver):
    default_mode: PresentationMode = PresentationMode.NATIVE

    def execute(self, scope: Scope, name: str, arguments: Mapping[str, Any],
                context: ExecutionContext) -> ToolResult:
        model_call = bool(context.call_id)
        if model_call and self.default_mode is PresentationMode.PTC and name != RUN_CODE:
            # the bug: "not on the wire" by the deployment's default mode, not the agent's
            return ToolResult.error(ErrorCode.UNKNOWN_TOOL.value,
                                    f"no tool named {name!r} was offered to the model")
        return super().execute(scope, name, arguments, context)


class DefaultModeLoopHost(Host):
    resolver_class = DefaultModeLoopResolver

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert isinstance(self.resolver, DefaultModeLoopResolver)
        self.resolver.default_mode = self.default_mode


def provider() -> Any:
    return ReferenceTarget(host_class=DefaultModeLoopHost,
                           name="model-calls-checked-in-default-mode")
