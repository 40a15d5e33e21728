"""Time one view resolution of the reference resolver (TF-12 performance goal).

Goal: with 10,000 global tools, 8 restrictions and 100 scope-local tools, one resolution takes
under 20 ms, and doubling the globals to 20,000 roughly doubles the time (ratio 1.6-2.4: linear).
Run: ``python benchmarks/bench_view.py``. Prints the best and the median of repeated timings
(garbage collection paused while timing, as :mod:`timeit` does). Both sizes are timed in
alternation, so the ratio of medians sees the same machine load on both sides; the time goal
uses the best, which other load can only make worse, never better.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Mapping
from typing import Any

from subagent_tck.reference import ExecutionContext, Resolver, Scope, Tool, ToolRegistry

RESTRICTIONS = 8
LOCALS = 100
REPEATS = 60
GOAL_MS = 20.0


def _body(arguments: Mapping[str, Any], context: ExecutionContext) -> None:
    return None


def build(globals_count: int) -> tuple[Resolver, Scope]:
    registry = ToolRegistry()
    names = [f"tool_{i}" for i in range(globals_count)]
    for name in names:
        registry.register(Tool(name, _body))
    scope = Scope("bench", registry)
    for r in range(RESTRICTIONS):
        if r % 2 == 0:  # deny-only: a few hundred names each
            scope.restrict({"deny": names[r :: 97]})
        else:  # allow-list: most names
            scope.restrict({"allow": [n for i, n in enumerate(names) if i % 50 != r]})
    for i in range(LOCALS):
        # half the locals shadow a global, half are new names
        scope.add_local(Tool(names[i * 3] if i % 2 else f"local_{i}", _body))
    return Resolver(registry), scope


def _once(resolver: Resolver, scope: Scope) -> float:
    start = time.perf_counter()
    resolver.view(scope)
    return (time.perf_counter() - start) * 1000


def time_views(*sizes: int) -> list[tuple[float, float, int]]:
    """(median ms, best ms, visible count) per size; sizes are timed in alternation so that
    both see the same load on the machine."""
    built = [build(size) for size in sizes]
    samples: list[list[float]] = [[] for _ in sizes]
    for resolver, scope in built:
        resolver.view(scope)  # warm up
    gc.disable()
    try:
        for _ in range(REPEATS):
            for i, (resolver, scope) in enumerate(built):
                samples[i].append(_once(resolver, scope))
    finally:
        gc.enable()
    return [
        (statistics.median(times), min(times), len(resolver.view(scope)))
        for times, (resolver, scope) in zip(samples, built, strict=True)
    ]


def main() -> None:
    (median_10k, best_10k, size_10k), (median_20k, best_20k, size_20k) = time_views(
        10_000, 20_000
    )
    ratio = median_20k / median_10k
    print(f"10,000 globals, {RESTRICTIONS} restrictions, {LOCALS} locals: "
          f"median {median_10k:.2f} ms, best {best_10k:.2f} ms ({size_10k} visible)")
    print(f"20,000 globals, {RESTRICTIONS} restrictions, {LOCALS} locals: "
          f"median {median_20k:.2f} ms, best {best_20k:.2f} ms ({size_20k} visible)")
    print(f"ratio 20k/10k (median): {ratio:.2f} (linear: 1.6-2.4)")
    verdict = "met" if best_10k < GOAL_MS and 1.6 <= ratio <= 2.4 else "MISSED"
    print(f"goal (< {GOAL_MS:.0f} ms at 10k, ratio 1.6-2.4): {verdict}")


if __name__ == "__main__":
    main()
