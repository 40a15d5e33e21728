"""A template variable whose value is empty leaves its placeholder raw (breaks PE-05).

Templates are checked strictly (unknown and malformed placeholders are refused), but the
substitution step writes ``variables[name] || placeholder``: a known variable whose value is the
empty string is taken for "missing", and the raw ``{{name}}`` reaches the model. The fixed cases
use non-empty values; drawn personas and variables find it. The JavaScript ``||`` default idiom
produces exactly this bug. It was SUBTLE; the check ``persona-empty-variable`` draws an empty
value in every case.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.prompt import render_strict

BREAKS = "PE-05"
#: Drawn deployment personas carry empty variables too: every rule that compares a composed
#: prompt with the oracle's sees the same raw placeholder.
ALSO_BREAKS = ("PE-01", "PE-02", "PE-03", "PE-04", "FR-01", "FR-02", "FR-04", "FR-05", "EN-01",
               "EN-03", "CA-04", "ST-02", "ST-03", "ST-04")

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")


def render_or_keep(template: str, variables: Mapping[str, str], what: str) -> str:
    render_strict(template, variables, what)  # unknown or malformed: refused as it should be
    # The bug: an empty value counts as missing and the placeholder stays.
    return _PLACEHOLDER.sub(lambda m: variables.get(m.group(1)) or m.group(0), template)


class EmptyVariableHost(Host):
    render_template = staticmethod(render_or_keep)


def provider() -> Any:
    return ReferenceTarget(host_class=EmptyVariableHost, name="empty-variable-left-raw")
