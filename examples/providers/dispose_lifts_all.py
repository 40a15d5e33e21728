"""Disposing one restriction lifts every restriction of the scope (breaks TF-14).

The dispose handle is checked, but the scope then clears all of its restrictions instead of the
one the handle names. A runtime that keeps one "current filter" per scope and resets it on
dispose does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Scope

BREAKS = "TF-14"


class ResetScope(Scope):
    def dispose(self, handle: str) -> bool:
        lifted = super().dispose(handle)
        self._restrictions.clear()  # the bug: every restriction goes
        return lifted


def provider() -> Any:
    return reference_target("dispose-lifts-all", scope_class=ResetScope)
