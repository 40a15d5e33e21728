"""A wildcard entry's prefix is dropped (breaks TF-01).

``mcp__github__create*`` names the tools of the server ``github`` whose name starts with
``create``. A runtime that matches the wildcard by cutting the entry at its last ``__`` and
comparing servers only reads it as ``mcp__github``: an allow rule admits every tool of the
server, a deny rule hides every one. This target declares the spelling for its permission rules
(``examples/providers/_permissions.py``) and reads it so; the TF checks draw wildcard entries in
the declared grammar, and the oracle admits only what the wildcard matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._permissions import PermissionHost, PermissionResolver, PermissionTarget
from subagent_tck.spec import Restriction
from subagent_tck.spec.grammar import PREFIX, Grammar, Tool, expand

BREAKS = "TF-01"
ALSO_BREAKS = ("TF-09", "TF-10")


class DropsPrefix(PermissionResolver):
    def read(self, rule: Mapping[str, Any], tools: list[Tool]) -> Restriction:
        # the bug: a prefix wildcard matches its whole server (an empty prefix)
        grammar = Grammar(self.grammar.forms, self.grammar.case_insensitive,
                          self.grammar.precedence)
        dropped = {key: [_dropped(e, grammar) for e in entries]
                   for key, entries in rule.items() if entries is not None}
        return expand(dropped, grammar, tools)


def _dropped(entry: str, grammar: Grammar) -> str:
    for form in grammar.forms:
        if form.meaning == PREFIX and entry.endswith("*") and form.pattern(
                grammar.case_insensitive).fullmatch(entry):
            return entry[: entry.rindex("__") + 2] + "*"
    return entry


class DroppingHost(PermissionHost):
    resolver_class = DropsPrefix


def provider() -> Any:
    return PermissionTarget(name="wildcard-prefix-dropped", host_class=DroppingHost)
