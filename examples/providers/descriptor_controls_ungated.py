"""Cold resume applies a stored descriptor's controls without gating them (breaks CA-01).

New starts are gated, but resume trusts the descriptor it reads back: a session whose
descriptor asks a provider without ``persona`` (or ``toolFilter``, ``outputSchema``) for that
control resumes with it applied, as if the provider could enforce it. A runtime that gates the
start request but treats stored state as already checked does this.
"""

from __future__ import annotations

from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Descriptor, Provider, Resume
from subagent_tck.spec import ErrorCode, TckError

BREAKS = "CA-01"


class UngatedResume(Resume):
    def gate(self, descriptor: Descriptor) -> Provider:
        provider = self.host.providers.get(descriptor.provider)
        if provider is None:
            raise TckError(ErrorCode.NOT_RESUMABLE, f"no provider {descriptor.provider!r}")
        return provider  # the bug: the descriptor's controls are not checked


def provider() -> Any:
    return reference_target("descriptor-controls-ungated", resume_class=UngatedResume)
