"""``maxDepth`` is compared without being validated (breaks DE-05).

The cap is used the way a JavaScript comparison would use it: ``-1`` refuses every child as
"exceeded", ``NaN``, ``{}`` or ``"abc"`` compare false and cap nothing, ``1.5`` allows depth 1,
``true`` acts as 1 and ``null`` as 0. A runtime that checks only "is it there" before
``childDepth > maxDepth`` does this.
"""

from __future__ import annotations

import math
from typing import Any

from examples.providers._parts import MisreadCapStart, reference_target
from subagent_tck.spec import ABSENT, ErrorCode, TckError, check_depth

BREAKS = "DE-05"


def js_number(value: object) -> float:
    """Roughly JavaScript's ``Number(value)``."""
    if value is None:
        return 0.0
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip() or 0)
        except ValueError:
            return math.nan
    if isinstance(value, list) and not value:
        return 0.0
    return math.nan


class UncheckedCapStart(MisreadCapStart):
    def misread_cap(self, cap: object) -> object:
        return cap if cap is ABSENT or check_depth(cap).ok else ABSENT

    def decide_depth(self) -> None:
        super().decide_depth()  # the depths decided as if a cap outside the domain were absent
        cap = self.asked["maxDepth"]
        if self.misread_cap(cap) is not cap and self.child_depth > js_number(cap):
            # the bug: no domain check before comparing
            raise TckError(ErrorCode.DEPTH_EXCEEDED, f"child depth {self.child_depth} > {cap!r}")


def provider() -> Any:
    return reference_target("cap-not-validated", child_start_class=UncheckedCapStart)
