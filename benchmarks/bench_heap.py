"""The heap set aside from the garbage collector while a run checks
(``conformance/core/heap.py``): certifying several zoo entries in one process with the freeze
and without it, the ratio in one run.

Each mode runs in a fresh interpreter, certifying the same zoo entries whole at seed 0 with the
default profile and its campaign, as the zoo test does; "without" replaces the freeze by a
context that does nothing. The script prints each mode's wall and CPU time, their ratio, and
whether the certificates were the same (timings aside). Nothing is asserted.

    python benchmarks/bench_heap.py                 # 8 entries drawn at --seed 0
    python benchmarks/bench_heap.py --entries 16 --seed 3
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_draw_cache import compare, entries, run

#: Run before the draw cache benchmark's child (the same certifications): "walked" replaces
#: the freeze by a context that does nothing.
_WALKED = """
import contextlib
from subagent_tck.conformance.core import heap
heap.set_aside = contextlib.nullcontext
"""


def main() -> None:
    names = entries(__doc__.split("\n\n")[0], 8)
    with tempfile.TemporaryDirectory() as scratch:
        walked = run("walked", names, scratch, prelude=_WALKED)
        frozen = run("frozen", names, scratch)
    compare(("heap walked", walked), ("heap frozen", frozen))


if __name__ == "__main__":
    main()
