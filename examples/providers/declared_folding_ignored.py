"""Case folding declared but not done (breaks TF-01).

A target may declare that its permission rules match tool names ignoring case
(docs/driver-api.md#dialect): the kit then judges it by that variant of docs/rules.md#TF-01 and
names the variant in the dialect section. A declaration is held to, not taken on trust: this
target declares ``caseInsensitive`` for its permission rules (``examples/providers/
_permissions.py``), accepts entries in any case, and then matches them exactly, so a deny entry
``READ`` hides nothing of ``read``. The checks draw entries in other cases for a folding
grammar, and the oracle of the declared variant expects them to match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from examples.providers._permissions import (
    MCP_FORMS,
    PermissionHost,
    PermissionResolver,
    PermissionTarget,
)
from subagent_tck.conformance.core.dialect import FilterGrammar
from subagent_tck.spec import Restriction
from subagent_tck.spec.grammar import Grammar, Tool, expand

BREAKS = "TF-01"
ALSO_BREAKS = ("TF-02", "TF-09", "TF-10")


class MatchesExactly(PermissionResolver):
    def read(self, rule: Mapping[str, Any], tools: list[Tool]) -> Restriction:
        # the bug: the declared folding is not applied when the rule is read
        exact = Grammar(self.grammar.forms, False, self.grammar.precedence)
        return expand(rule, exact, tools)


class ExactHost(PermissionHost):
    resolver_class = MatchesExactly


def provider() -> Any:
    target = PermissionTarget(name="declared-folding-ignored", host_class=ExactHost)
    target.grammar = FilterGrammar(forms=MCP_FORMS, caseInsensitive=True)
    return target
