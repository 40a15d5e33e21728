"""A stored descriptor read leniently: a field of the wrong JSON type is read as absent
(breaks FR-04).

A child composed with a persona is stored with ``"persona": "..."``; rewrite that to ``42``,
or its tool filter to a list of names, and this host's store drops the field when it reads the
header back, as a parser that keeps only what it recognises would. The resume then succeeds and
the child runs without the control it was composed with (the deployment persona, every global
tool), where docs/rules.md#FR-04 wants a descriptor that cannot be applied to fail the resume.
Descriptors of the right shape read as before, so every other case of the catalogue conforms.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host, SessionStore

BREAKS = "FR-04"

#: The type each field must have to be read at all (the others are left as they are).
_TYPES = {"provider": str, "preset": str, "persona": str, "model": str,
          "toolFilter": Mapping, "outputSchema": Mapping, "spawnPolicy": Mapping}


class LenientStore(SessionStore):
    def header(self, session: str) -> Any:
        stored = super().header(session)
        if not isinstance(stored.descriptor, Mapping):
            return stored
        kept = {key: value for key, value in stored.descriptor.items()  # the bug
                if key not in _TYPES or isinstance(value, _TYPES[key])}
        return replace(stored, descriptor=kept)


class LenientHost(Host):
    def __init__(self, model: Any, store: Any = ":memory:", **options: Any) -> None:
        super().__init__(model, store if isinstance(store, SessionStore) else LenientStore(store),
                         **options)


def provider() -> Any:
    return ReferenceTarget(host_class=LenientHost, name="lenient-descriptor-fields")
