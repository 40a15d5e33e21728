"""A template variable whose value is empty leaves its placeholder raw (breaks PE-05).

Templates are checked strictly (unknown and malformed placeholders are refused), but the
substitution step writes ``variables[name] || placeholder``: a known variable whose value is the
empty string is taken for "missing", and the raw ``{{name}}`` reaches the model. The fixed cases
use non-empty values; drawn personas and variables find it. The JavaScript ``||`` default idiom
produces exactly this bug. It was SUBTLE; the check ``persona-empty-variable`` draws an empty
value in every case.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import RAW_PLACEHOLDER_RULES, reference_target, render_leaving_raw

BREAKS = "PE-05"
#: Drawn deployment personas carry empty variables too: every rule that compares a composed
#: prompt with the oracle's sees the same raw placeholder.
ALSO_BREAKS = RAW_PLACEHOLDER_RULES

# The bug: an empty value counts as missing and the placeholder stays.
render_or_keep = render_leaving_raw(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}",
                                    lambda variables, m: variables.get(m.group(1)) or m.group(0))


def provider() -> Any:
    return reference_target("empty-variable-left-raw", render_template=staticmethod(render_or_keep))
