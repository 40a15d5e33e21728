"""A server-level deny entry is silently ignored (breaks TF-01).

Claude Code's documentation lets a permission rule name a whole MCP server: ``mcp__github`` or
``mcp__github__*`` denies every tool of the server ``github``. Until 2.1.178 such server-level
deny entries were ignored (its changelog): the rule matched no tool, and every tool of the
server stayed available. This target declares those spellings for its permission rules
(``examples/providers/_permissions.py``) but reads a server-level entry as a tool's name, which
it never is: the deny list hides nothing of the server. The TF checks draw entries in the
declared grammar, so the oracle expects the server's tools hidden (TF-01) and a tool registered
later on that server hidden too (TF-09).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._permissions import PermissionHost, PermissionResolver, PermissionTarget
from subagent_tck.spec import Restriction
from subagent_tck.spec.grammar import SERVER, Grammar, Tool, expand

BREAKS = "TF-01"
ALSO_BREAKS = ("TF-09",)


class IgnoresServerDeny(PermissionResolver):
    def read(self, rule: Mapping[str, Any], tools: list[Tool]) -> Restriction:
        read = expand(rule, self.grammar, tools)
        if rule.get("deny") is None:
            return read
        # the bug: a deny entry of a server-level form matches nothing
        plain = Grammar(tuple(f for f in self.grammar.forms if f.meaning != SERVER),
                        self.grammar.case_insensitive, self.grammar.precedence)
        return Restriction(read.allow, expand({"deny": rule["deny"]}, plain, tools).deny)


class IgnoringHost(PermissionHost):
    resolver_class = IgnoresServerDeny


def provider() -> Any:
    return PermissionTarget(name="server-deny-ignored", host_class=IgnoringHost)
