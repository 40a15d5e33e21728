"""Draws that depend on the seed alone (docs/certify.md#seeds).

Since 6.131, Hypothesis's default provider sometimes (about one draw in twenty) replaces a drawn
string or number with a literal taken from a pool: its own fixed constants, plus every literal
found in the "local" modules loaded at that moment (modules outside site-packages and the
standard library, tests excluded). That second half of the pool depends on what else the
process imported: an editable install or a wheel, a whole test run or one file, a check run in
a worker process or in the main one. The same seed would then draw other names and sizes, and
a certificate could change with nothing changed in the target.

:func:`stable_draws` keeps Hypothesis's own constants (they are the same for one Hypothesis
version everywhere) and hides the local ones while the kit draws its cases. It reaches into
Hypothesis internals (``providers._get_local_constants`` and its cache), so it checks that they
exist and is a no-op on a Hypothesis that has no such pool; tests/engine/test_stable_draws.py
proves a loaded module no longer changes a seeded draw.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_depth = 0
_saved: Callable[[], Any] | None = None


def _providers() -> Any | None:
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without the module
        return None
    if not all(hasattr(providers, name) for name in ("_get_local_constants", "CONSTANTS_CACHE")):
        return None  # pragma: no cover - a Hypothesis before local constants
    return providers


def _empty() -> Any:
    from hypothesis.internal.constants_ast import Constants

    return Constants()


@contextmanager
def stable_draws() -> Iterator[None]:
    """While inside, Hypothesis draws no constant found in a loaded module (reentrant)."""
    global _depth, _saved
    providers = _providers()
    if providers is None:  # pragma: no cover
        yield
        return
    with _lock:
        if _depth == 0:
            _saved = providers._get_local_constants
            empty = _empty()
            providers._get_local_constants = lambda: empty
            # cached pools were built from the local constants: build them again without
            providers.CONSTANTS_CACHE.cache.clear()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                providers._get_local_constants = _saved
                _saved = None
                providers.CONSTANTS_CACHE.cache.clear()
