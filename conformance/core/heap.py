"""The heap a certification starts with, set aside from the garbage collector while it runs.

Everything alive when a run starts (the modules, Hypothesis' strategies, the suite, a test
runner's collected items) stays alive through it, yet every full collection of the cyclic
garbage collector walks it again: a certification allocates millions of short-lived objects,
and CPython runs a full collection whenever enough of them survive a younger one.
``gc.freeze()`` moves what exists into a generation no collection walks; ``gc.unfreeze()``
gives it back when the run ends, so that a process certifying many times (a test suite, the
pytest plugin) keeps collecting what those objects later leave behind. Measured: zoo entries
certified whole in one process take 1.28 times as long without it (benchmarks/README.md, "The
heap").
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def set_aside() -> Iterator[None]:
    """Freeze the heap for the ``with`` block, unless something froze it already: then the
    freeze is that caller's, and so is the unfreeze (a run in a run, runs in threads)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
