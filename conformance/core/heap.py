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
import threading
from collections.abc import Iterator

_LOCK = threading.Lock()
#: The ``with`` blocks open now, in any thread: the first freezes, the last gives back.
_holders = 0


@contextlib.contextmanager
def set_aside() -> Iterator[None]:
    """Freeze the heap for the ``with`` block; runs at once (in threads, or a run in a run)
    share one freeze, which the last to end gives back. ``gc`` can only give back every frozen
    object at once: a freeze someone made before the first block is given back with it (on
    CPython 3.12 the interpreter starts with a few hundred objects frozen; they go back to the
    collector too, which costs nothing but their walk)."""
    global _holders
    with _LOCK:
        _holders += 1
        if _holders == 1:
            gc.freeze()
    try:
        yield
    finally:
        with _LOCK:
            _holders -= 1
            if _holders == 0:
                gc.unfreeze()
