"""What a refused step must leave unchanged, and whether a step was refused as the oracle says.

A snapshot of everything a refusal must not change (sessions, agents, events, model requests,
tool invocations: TF-07, TF-08, DE-04, CA-02, FR-03), cached until an accepted step changes the
target, and taken with the change it precedes where the target serves batches (the reads a
change carries: fuzz/ahead.py); accept or refuse and the error code (:meth:`check_outcome`); the
names a refusal must list (docs/rules.md#TF-08).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from subagent_tck.spec import ErrorCode, TckError

from .ahead import Read
from .lockstep_core import LockstepCore


class RefusalChecks(LockstepCore):
    """The snapshot a refusal is compared with, and the outcome of a step."""

    def snapshot(self) -> tuple[Any, ...]:
        """Everything a refused operation must leave unchanged. Cached: it is re-read only
        after a step that may have changed the target was accepted."""
        if self._snapshot is None:
            self._snapshot = self._take_snapshot()
        return self._snapshot

    def changed(self) -> None:
        """The fuzzer itself changed the target (a planted header): forget the snapshot."""
        self._snapshot = None

    def snapshot_later(self) -> Callable[[], tuple[Any, ...]]:
        """:meth:`snapshot` as it is before the next change, taken with it (one round trip
        with the change where the target serves batches: fuzz/ahead.py)."""
        if self._snapshot is not None:
            known = self._snapshot
            return lambda: known
        exchanges = self._requests_made()
        self._before = [("observe", {})]

        def take() -> tuple[Any, ...]:
            seen = self._guard("observe", lambda: self.ahead.early("observe"))
            self._snapshot = self._snapshot_of(seen, exchanges)
            return self._snapshot

        return take

    def read_later(self, name: str, **kwargs: Any) -> Callable[[], Any]:
        """A read as it answers before the next change, taken with it (see
        :meth:`snapshot_later`)."""
        self._before.append((name, kwargs))
        return lambda: self._guard(name, lambda: self.ahead.early(name, **kwargs))

    def expect(self, after: list[Read]) -> None:
        """The reads that follow the next change (and those :meth:`snapshot_later` put
        before it): carried with it where the target serves batches."""
        self.ahead.plan(self._before, after)
        self._before = []

    def _take_snapshot(self) -> tuple[Any, ...]:
        seen = self._guard("observe", self.deployment.observe)  # one read, one round trip
        return self._snapshot_of(seen, self._requests_made())

    def _requests_made(self) -> int:
        """Every model request made, a reply still being computed included: a scripted reply
        that acts on the target first (an abort) may let the target's operation return before
        the gateway records the exchange, and that request is no change of a later step."""
        return len(self.gateway.requests())

    def _snapshot_of(self, seen: Any, exchanges: int) -> tuple[Any, ...]:
        sessions = tuple(
            (h.session, h.parent, repr(h.delegationDepth), repr(h.descriptor))
            for h in seen.sessions
        )
        return (
            sessions,
            tuple(seen.agents),
            len(seen.events),
            exchanges,
            len(seen.invocations),
        )

    def unchanged(self, before: tuple[Any, ...], observation: str, rule: str | None) -> None:
        after = self._take_snapshot()
        self._snapshot, self._verified = after, True
        if after != before:
            parts = ("sessions", "agents", "events", "model requests", "tool invocations")
            changed = [name for name, a, b in zip(parts, before, after, strict=True) if a != b]
            if before[3] != after[3]:  # name the requests: a late one of an earlier turn shows
                late = self.gateway.requests()[before[3]:after[3]]
                agents = sorted({r.agent for r in late})
                changed[changed.index("model requests")] = (
                    f"model requests ({after[3] - before[3]} more, from agent(s) "
                    f"{', '.join(agents)}: a request still arriving from an earlier turn after "
                    "its operation returned shows this way too)")
            raise self.diverge(
                observation, f"a refused operation changed {', '.join(changed)}",
                dict(zip(parts, before, strict=True)), dict(zip(parts, after, strict=True)),
                rule,
            )

    def check_outcome(
        self, observation: str, expected_codes: frozenset[ErrorCode], may_accept: bool,
        error: TckError | None, rule_if_wrong: str | None, reason: str = "",
    ) -> bool:
        """Compare accept/refuse and the code; True when the target accepted."""
        wanted = sorted(c.value for c in expected_codes)
        if error is None:
            if not expected_codes or may_accept:
                return True
            raise self.diverge(
                observation, f"accepted, expected a refusal with {' or '.join(wanted)}"
                + (f" ({reason})" if reason else ""), wanted, "accepted", rule_if_wrong,
            )
        if error.code in expected_codes:
            return False
        expected: Any = wanted or "accepted"
        raise self.diverge(
            observation, f"refused with {error.code.value}: {error.message}; expected "
            + (" or ".join(wanted) if wanted else "it to be accepted"),
            expected, error.to_json(), rule_if_wrong,
        )

    def check_offending(self, error: TckError, offending: tuple[str, ...]) -> None:
        """TF-08: the error lists every offending name (in ``details`` or the message)."""
        listed = error.details.get("offending")
        names = [str(n) for n in listed] if isinstance(listed, list) else []
        missing = [
            n for n in offending
            if n not in names and not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])",
                                                error.message)
        ]
        if missing:
            raise self.diverge(
                "restrict-offending", f"the refusal does not name {missing}", list(offending),
                error.to_json(),
            )
