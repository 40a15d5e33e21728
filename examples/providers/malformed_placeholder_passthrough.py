"""Malformed placeholders pass through a persona as literal text (breaks PE-05).

Unknown variables are refused with ``INVALID_TEMPLATE`` as they should be, but the renderer only
recognises well-formed ``{{name}}`` tokens: ``{{two words}}``, ``{{}}`` or an unclosed ``{{role``
are neither substituted nor refused, so the raw placeholder reaches the model. A template engine
built on one regular expression for valid names behaves like this.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart, PromptSection
from subagent_tck.spec import (
    ABSENT,
    PERSONA_SECTION,
    ErrorCode,
    TckError,
)

BREAKS = "PE-05"

_WELL_FORMED = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")


def render_lenient(template: str, variables: Mapping[str, str], what: str) -> str:
    """Substitute well-formed placeholders; the bug: anything else is left as it is."""
    unknown = [m.group(1) for m in _WELL_FORMED.finditer(template) if m.group(1) not in variables]
    if unknown:
        raise TckError(
            ErrorCode.INVALID_TEMPLATE, f"{what}: unknown variable(s) {', '.join(unknown)}"
        )
    return _WELL_FORMED.sub(lambda m: variables[m.group(1)], template)


class LenientPersona(ChildStart):
    def install_persona(self, agent: Agent, value: object) -> str | None:
        if value is ABSENT or not isinstance(value, str):
            return super().install_persona(agent, value)
        render_lenient(value, self.host.variables, "persona")
        agent.scope.add_section(PromptSection(PERSONA_SECTION, value))
        return value


def provider() -> Any:
    return reference_target("malformed-placeholder-passthrough",
                            child_start_class=LenientPersona,
                            render_template=staticmethod(render_lenient))
