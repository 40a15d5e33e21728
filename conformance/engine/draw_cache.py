"""Drawn cases kept for the next certification in the same process (docs/certify.md#draw-cache).

With a seed fixed, Hypothesis draws the same states in the same order for the same strategy
and budget as long as no state fails and none is rejected: which states it draws depends on
what it drew before, never on what the body did with them. A process that certifies many
targets at one seed (the zoo, a pytest run of the plugin, ``tools/make_matrix.py``) drew every
passing property's states anew each time, and drawing is about half the time of a check
against an in-process target. This module keeps, per (strategy, seed, budget), the states of a
property that passed whole; :func:`~.for_all.run_property` replays them in order and hands
over to Hypothesis at the first state that does not pass cleanly, after putting the check's
context back as it was (so that what a run records is what an uncached run records).

The key must say everything the draws depend on. A strategy is described by its ``repr``
(Hypothesis's: how it was built, lambdas by their source) and, walked through its attributes,
the values its functions close over (a check's context by the fields a strategy may read of
it, ``CheckContext.draw_fields``; a lock by nothing); anything the walk cannot describe by value
(an object whose ``repr`` is its address, a walk too large) makes the property uncacheable: it
then draws as it always did. ``SUBAGENT_TCK_DRAW_CACHE=off`` turns the cache off;
``SUBAGENT_TCK_DRAW_CACHE=verify`` draws every property with Hypothesis and fails loudly when a
kept sequence differs from the one drawn (tests/conformance/test_draw_cache.py runs whole
certifications so).
"""

from __future__ import annotations

import copy
import enum
import os
import threading
import types
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any, Generic, TypeVar

from subagent_tck.spec import ErrorCode, TckError

#: Properties kept at most (the oldest goes first).
MAX_KEPT = 4096
#: Nodes a strategy's walk may visit before the strategy counts as uncacheable.
MAX_NODES = 20_000
ENV = "SUBAGENT_TCK_DRAW_CACHE"

# Attributes Hypothesis fills in as a strategy is used (caches of what the other attributes
# already say): left out, so that a strategy reads the same before and after its first draw.
_DERIVED = ("cached_", "validate_called", "__label", "__wrapped_strategy", "_unwrapped",
            "__representation", "__element_strategies", "__is_empty")
_LOCKS = (type(threading.Lock()), type(threading.RLock()))
_PLAIN = (type(None), bool, int, float, complex, str, bytes, range, enum.Enum)


class Uncacheable(Exception):
    """The walk met something it cannot describe by value."""


class DrawCacheMismatch(AssertionError):
    """Verify mode: a kept sequence of states differs from the one Hypothesis drew."""


def mode() -> str:
    """``on`` (the default), ``off`` or ``verify`` (see the module doc)."""
    value = os.environ.get(ENV, "on").strip().lower() or "on"
    if value not in ("on", "off", "verify"):
        raise TckError(ErrorCode.USAGE, f"{ENV}={value!r}: set it to on (the default), off or "
                       "verify (docs/certify.md#draw-cache), or unset it")
    return value


class _Walk:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.seen: dict[int, int] = {}

    def value(self, obj: Any) -> None:
        from hypothesis.strategies import SearchStrategy

        if len(self.out) > MAX_NODES:
            raise Uncacheable("the strategy is too large to describe")
        if isinstance(obj, _PLAIN):
            self.out.append(f"{type(obj).__qualname__}:{obj!r}")
            return
        if id(obj) in self.seen:  # shared or cyclic: named by first visit
            self.out.append(f"@{self.seen[id(obj)]}")
            return
        self.seen[id(obj)] = len(self.seen)
        if isinstance(obj, (tuple, list)):
            self.out.append(f"{type(obj).__name__}[{len(obj)}")
            for item in obj:
                self.value(item)
            self.out.append("]")
        elif isinstance(obj, dict):
            self.out.append(f"dict[{len(obj)}")
            for key, item in obj.items():
                self.value(key)
                self.value(item)
            self.out.append("]")
        elif isinstance(obj, (set, frozenset)):
            self.out.append(f"set:{sorted(repr(item) for item in obj)!r}")
            self._plain_repr(self.out[-1])
        elif isinstance(obj, SearchStrategy):
            self.out.append(f"strategy:{type(obj).__qualname__}")
            for name, item in sorted(vars(obj).items()):
                if not any(part in name for part in _DERIVED):
                    self.out.append(name)
                    self.value(item)
        elif isinstance(obj, types.FunctionType):
            self.function(obj)
        elif isinstance(obj, types.MethodType):
            self.out.append("method")
            self.value(obj.__func__)
            self.value(obj.__self__)
        elif isinstance(obj, _LOCKS):  # a strategy's own lock: nothing its draws depend on
            self.out.append("lock")
        elif (fields := getattr(type(obj), "draw_fields", None)) is not None:
            # a check's context: what a strategy may read of it (CheckContext.draw_fields)
            self.out.append(f"{type(obj).__qualname__}:fields")
            for name in fields:
                self.out.append(name)
                self.value(getattr(obj, name))
        elif isinstance(obj, (types.BuiltinFunctionType, type)):
            self.out.append(f"{getattr(obj, '__module__', '')}.{obj.__qualname__}")
        else:
            text = repr(obj)
            self._plain_repr(text)
            self.out.append(f"{type(obj).__module__}.{type(obj).__qualname__}:{text}")

    def function(self, fn: types.FunctionType) -> None:
        code = fn.__code__
        self.out.append(f"fn:{fn.__module__}.{fn.__qualname__}:{code.co_filename}:"
                        f"{code.co_firstlineno}:{hash(code.co_code)}")
        self.value(fn.__defaults__)
        self.value(fn.__kwdefaults__)
        for cell in fn.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:  # a cell not yet filled
                self.out.append("<empty cell>")
                continue
            self.value(contents)

    @staticmethod
    def _plain_repr(text: str) -> None:
        if " at 0x" in text or " object at " in text:
            raise Uncacheable("a value is named by its address")


def fingerprint(strategy: Any) -> str | None:
    """What ``strategy``'s draws depend on, as text; None when the walk cannot say."""
    walk = _Walk()
    try:
        head = repr(strategy)
        _Walk._plain_repr(head)
        walk.value(strategy)
    except (Uncacheable, RecursionError):
        return None
    except Exception:  # a repr that raises: no key, no cache
        return None
    return head + "\n" + "\n".join(walk.out)


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """A bounded store, the least recently used out first (thread-safe): the draw cache's and
    the campaign's kept rounds (fuzz/round_cache.py)."""

    def __init__(self, size: int) -> None:
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size
        self.hits = 0
        self.misses = 0

    def get(self, key: K) -> V | None:
        """What ``key`` keeps (counted as a hit or a miss)."""
        with self._lock:
            value = self._kept.get(key)
            if value is None:
                self.misses += 1
                return None
            self._kept.move_to_end(key)
            self.hits += 1
            return value

    def peek(self, key: K) -> V | None:
        """What ``key`` keeps, not counted (verify mode compares it)."""
        with self._lock:
            return self._kept.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._kept[key] = value
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.hits = self.misses = 0


DrawKey = tuple[str, int, int]


class DrawCache(Kept[DrawKey, tuple[Any, ...]]):
    """Kept sequences of drawn states, by key (one per process)."""

    def __init__(self, size: int = MAX_KEPT) -> None:
        super().__init__(size)

    def key(self, strategy: Any, seed: int, max_examples: int) -> DrawKey | None:
        described = fingerprint(strategy)
        return None if described is None else (described, seed, max_examples)

    def states(self, key: DrawKey) -> list[Any] | None:
        """Copies of the states ``key`` keeps (a body may change what it is given)."""
        kept = self.get(key)
        return None if kept is None else [copy.deepcopy(state) for state in kept]


def snapshot(state: Any) -> Any:
    """A copy of a drawn state to keep (the body may change the one it is given); raises
    :class:`Uncacheable` when the state cannot be copied."""
    try:
        return copy.deepcopy(state)
    except Exception as exc:
        raise Uncacheable(f"a drawn state cannot be copied: {exc}") from exc


def verify(key: DrawKey, kept: Sequence[Any], drawn: Sequence[Any]) -> None:
    """Verify mode: ``drawn`` (Hypothesis's) must be the kept sequence, state for state."""
    if [repr(s) for s in kept] != [repr(s) for s in drawn]:
        raise DrawCacheMismatch(
            f"the draw cache kept other states than Hypothesis drew for one key (seed {key[1]}, "
            f"{key[2]} examples): kept {len(kept)}, drawn {len(drawn)}; first kept "
            f"{[repr(s)[:200] for s in kept[:2]]}, first drawn "
            f"{[repr(s)[:200] for s in drawn[:2]]}. The key misses something the draws depend "
            f"on (docs/certify.md#draw-cache); {ENV}=off runs without the cache")


#: The process's cache.
CACHE = DrawCache()
