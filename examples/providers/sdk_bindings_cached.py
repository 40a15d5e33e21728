"""The run_code SDK is generated once per presentation mode (breaks TF-12).

Generating a typed SDK for ``run_code`` is costly, so this runtime caches a scope's bindings
and regenerates them only when the scope's presentation mode changes. Registry and scope
changes after the first generation never reach the SDK: a tool registered later is in the view
and the wire schemas but not bound in ``run_code`` (and a removed one stays bound), so the SDK
and the view are no longer one set. The checks once read the bindings once per state (it was
SUBTLE); TF-12's check now registers a global after reading them and reads them again, and
the fuzzer does the same over longer sequences.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Resolver, Scope, ToolRegistry
from subagent_tck.spec import PresentationMode

BREAKS = "TF-12"


class CachedSdkResolver(Resolver):
    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__(registry)
        self._sdk: dict[str, tuple[PresentationMode, tuple[str, ...]]] = {}

    def sdk_bindings(self, scope: Scope) -> tuple[str, ...]:
        cached = self._sdk.get(scope.id)
        if cached is not None and cached[0] is scope.mode:  # the bug: keyed on the mode only
            return cached[1]
        names = super().sdk_bindings(scope)
        self._sdk[scope.id] = (scope.mode, names)
        return names


def provider() -> Any:
    return reference_target("sdk-bindings-cached", resolver_class=CachedSdkResolver)
