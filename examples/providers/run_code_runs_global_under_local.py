"""run_code runs the global body where a scope-local tool shadows it (breaks TF-12, only
through execution).

The view, the wire schemas, lookup and a direct call all give the scope-local tool (TF-05),
and the SDK binds the name once. But the code-mode dispatcher was written against the global
registry and consults the scope's locals only for names the registry lacks: a program calling a
shadowed name runs the global body the scope replaced. A runtime whose code-mode bridge resolves
names in its own order instead of through the one resolver does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import RegistryDispatchResolver, reference_target

BREAKS = "TF-12"


class GlobalFirstResolver(RegistryDispatchResolver):
    def registry_answers(self, name: object, bound: set[str]) -> bool:
        return name in bound  # the bug: the registry is asked first


def provider() -> Any:
    return reference_target("run-code-runs-global-under-local", resolver_class=GlobalFirstResolver)
