"""One drawn byte string read as many choices (:class:`Code`): how the campaign's state machine
and the lexicon turn a single Hypothesis draw into names, operations and values, so that
Hypothesis shrinks them all by lowering bytes.

A leaf of the fuzzer: :mod:`.lexicon` and :mod:`.strategies` import it, it imports neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")


class Code:
    """Choices read from one drawn byte string, one byte per choice (two for more than 64
    options), each taken modulo the number of options. A zero byte is the first (simplest)
    option, so Hypothesis shrinks a choice by lowering its own byte; an exhausted code reads as
    zeros."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0

    def take(self, n: int) -> int:
        """A choice in ``range(n)``."""
        if n <= 1:
            return 0
        width = 1 if n <= 64 else 2
        chunk = self.data[self.position : self.position + width]
        self.position += width
        return int.from_bytes(chunk, "big") % n

    def choose(self, options: Sequence[T]) -> T:
        return options[self.take(len(options))]


def codes(size: int) -> st.SearchStrategy[bytes]:
    """``size`` random bytes: one choice for Hypothesis, many for a :class:`Code`."""
    return st.binary(min_size=size, max_size=size)
