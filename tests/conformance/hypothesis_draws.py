"""What a bare seeded Hypothesis test draws (the kit's wrappers not used): the tests that look at
drawn values read them here."""

from __future__ import annotations

from typing import TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st

T = TypeVar("T")


def seeded_draws(strategy: st.SearchStrategy[T], seed: int, n: int) -> list[T]:
    """The values (up to ``n``) a Hypothesis test seeded with ``seed`` draws from ``strategy``:
    no example database, no deadline, no health check."""
    drawn: list[T] = []

    @settings(max_examples=n, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @seeded(seed)
    @given(strategy)
    def collect(value: T) -> None:
        drawn.append(value)

    collect()
    return drawn
