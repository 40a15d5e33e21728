"""The rule catalogue: one :class:`~subagent_tck.spec.rule.Rule` per id of docs/rules.md.

One module per family (the tool filter's in two: TF-01..TF-08, TF-09..TF-16); this module gathers
them in docs/rules.md's order and offers look-ups.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from ..errors import ErrorCode, TckError
from ..rule import Rule
from . import (
    depth,
    editions,
    first_request,
    gating,
    model_selection,
    persona,
    spawn_policy,
    subagent_tool,
    tool_filter,
    tool_filter_live,
)

CATALOGUE: tuple[Rule, ...] = (
    *tool_filter.RULES,
    *tool_filter_live.RULES,
    *persona.RULES,
    *depth.RULES,
    *gating.RULES,
    *first_request.RULES,
    *editions.RULES,
    *subagent_tool.RULES,
    *spawn_policy.RULES,
    *model_selection.RULES,
)

RULES_BY_ID: Mapping[str, Rule] = {rule.id: rule for rule in CATALOGUE}


def get_rule(rule_id: str) -> Rule:
    """The rule with this id (case-insensitive), or a ``USAGE`` error naming the known ids."""
    rule = RULES_BY_ID.get(rule_id.strip().upper())
    if rule is None:
        families = sorted({r.family.value for r in CATALOGUE})
        raise TckError(
            ErrorCode.USAGE,
            f"unknown rule id {rule_id!r}: ids look like TF-01; families are "
            + ", ".join(families)
            + " (see `subagent-tck rules`)",
        )
    return rule


def catalogue_hash() -> str:
    """A stable digest of the catalogue's content, recorded in every certificate.

    Dumped in Python mode, so that non-finite example values stay ``NaN``/``Infinity`` tokens
    (JSON mode writes them as ``null``, and an example with ``nan`` would hash as one with
    ``None``)."""
    data = json.dumps([r.model_dump(mode="python") for r in CATALOGUE], sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()[:16]
