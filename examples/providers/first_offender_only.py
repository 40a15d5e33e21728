"""An invalid tool filter's error names only the first unknown name (breaks TF-08).

The filter is refused as it should be, but the error lists one offending name, so fixing a
filter with several misspellings takes one round trip per name. A validator that throws on the
first bad entry instead of collecting them does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope
from subagent_tck.spec import ErrorCode, TckError

BREAKS = "TF-08"


class FirstOffenderScope(Scope):
    def restrict(self, value: object) -> str:
        try:
            return super().restrict(value)
        except TckError as exc:
            offending = exc.details.get("offending")
            if exc.code is not ErrorCode.INVALID_TOOL_FILTER or not offending:
                raise
            first = next(iter(offending))  # the bug: the first bad name only
            raise TckError(
                ErrorCode.INVALID_TOOL_FILTER,
                f"the tool filter names {first!r}, which is not a registered global tool",
                {"offending": [first]},
            ) from None


def provider() -> Any:
    return reference_target("first-offender-only", scope_class=FirstOffenderScope)
