"""run_code's SDK can still call a filtered global (breaks TF-12, only through execution).

This runtime generates its code-mode SDK with a function for every registered tool and filters
only the list it presents: ``sdk_bindings``, the wire schemas, lookup and direct execution all
follow the scope's view, but a program that calls a hidden global by name finds its function
in the generated table and runs the body. A runtime that filters the SDK's type declarations
(what the model reads) but not its dispatch table does this; reading the bindings never shows
it, executing them does.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import RegistryDispatchResolver, reference_target

BREAKS = "TF-12"


class FullTableResolver(RegistryDispatchResolver):
    def registry_answers(self, name: object, bound: set[str]) -> bool:
        return name not in bound  # the bug: the unfiltered table answers


def provider() -> Any:
    return reference_target("run-code-reaches-hidden-global", resolver_class=FullTableResolver)
