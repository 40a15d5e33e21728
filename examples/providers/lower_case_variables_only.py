"""Only lower-case variable names are substituted (breaks PE-05).

Templates are checked strictly (unknown and malformed placeholders are refused), but the
substitution step was written against the variables its authors had at hand (``team``,
``role``): its pattern is ``{{ [a-z]+ }}``, so a known variable named ``Team``, ``api_key``,
``_x`` or ``role2`` (every one a name of the template grammar, docs/rules.md#PE-05) passes the
check and then reaches the model raw. The kit's former fixed vocabulary used only lower-case
words and certified this target; drawn variable names catch it. Every rule that compares a
child's composed prompt sees the raw placeholder too (ALSO_BREAKS).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.prompt import render_strict

BREAKS = "PE-05"
#: The rules that compare a composed prompt with the oracle's see the same raw placeholder.
ALSO_BREAKS = ("PE-01", "PE-02", "PE-03", "PE-04", "FR-01", "FR-02", "FR-04", "FR-05", "EN-01",
               "EN-03", "CA-04", "ST-02", "ST-03", "ST-04")

_PLACEHOLDER = re.compile(r"\{\{\s*([a-z]+)\s*\}\}")


def render_or_keep(template: str, variables: Mapping[str, str], what: str) -> str:
    render_strict(template, variables, what)  # unknown or malformed: refused as it should be
    # The bug: a name outside [a-z]+ is never matched, so its placeholder stays.
    return _PLACEHOLDER.sub(lambda m: variables.get(m.group(1), m.group(0)), template)


class LowerCaseVariablesHost(Host):
    render_template = staticmethod(render_or_keep)


def provider() -> Any:
    return ReferenceTarget(host_class=LowerCaseVariablesHost, name="lower-case-variables-only")
