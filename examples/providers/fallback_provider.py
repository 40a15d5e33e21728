"""A start on an unknown provider falls back to the first registered one (breaks CA-05).

A misspelled provider name runs the child on ``spawn`` instead of failing with NO_PROVIDER,
with capabilities the caller never chose. A runtime with a "default provider" for convenience
does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import ChildStart
from subagent_tck.spec import ErrorCode, TckError

BREAKS = "CA-05"


class FallbackStart(ChildStart):
    def select_provider(self) -> None:
        try:
            super().select_provider()
        except TckError as exc:
            registered = self.host.providers.all()
            if exc.code is not ErrorCode.NO_PROVIDER or not registered:
                raise
            self.provider = registered[0]  # the bug: a silent fallback


def provider() -> Any:
    return reference_target("fallback-provider", child_start_class=FallbackStart)
