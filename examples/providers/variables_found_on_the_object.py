"""A template placeholder naming one of the variables object's own members is substituted
(breaks PE-05).

An unknown ``{{name}}`` is an error that names it (docs/rules.md#PE-05). This runtime looks a
placeholder up on the variables object itself, the way ``name in vars`` finds ``constructor``
or ``__proto__`` on a JavaScript object: a name that is no variable but one of the object's own
members (``keys``, ``items``, ``get``, ``__class__``, ``__doc__``, ...) passes the check and is
substituted with the member's text, a method's or a class's description, where the model should
never see one. Every other unknown name is refused as it should be; the checks drew variable
names and their misspellings, never the object's own members, and certified it.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host


class MemberVariables(dict[str, str]):
    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or (isinstance(name, str) and hasattr(self, name))

    def __getitem__(self, name: str) -> str:
        if super().__contains__(name):
            return super().__getitem__(name)
        return str(getattr(self, name))  # the bug: the object's own member


BREAKS = "PE-05"


class MemberLookupHost(Host):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.variables = MemberVariables(self.variables)


def provider() -> Any:
    return ReferenceTarget(host_class=MemberLookupHost, name="variables-found-on-the-object")
