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

from typing import Any

from examples.providers._parts import RAW_PLACEHOLDER_RULES, reference_target, render_leaving_raw

BREAKS = "PE-05"
#: The rules that compare a composed prompt with the oracle's see the same raw placeholder.
ALSO_BREAKS = RAW_PLACEHOLDER_RULES

# The bug: a name outside [a-z]+ is never matched, so its placeholder stays.
render_or_keep = render_leaving_raw(r"\{\{\s*([a-z]+)\s*\}\}",
                                    lambda variables, m: variables.get(m.group(1), m.group(0)))


def provider() -> Any:
    return reference_target("lower-case-variables-only",
                            render_template=staticmethod(render_or_keep))
