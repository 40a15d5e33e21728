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

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_draw_cache import ROOT, ZOO, _untimed, first_difference

_CHILD = """
import contextlib, json, resource, sys, time
sys.path.insert(0, {root!r})
from subagent_tck.conformance.core import heap
from subagent_tck.conformance.cli import suite_for
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.targets import load_target
if not {freeze!r}:
    heap.set_aside = contextlib.nullcontext
out = {{}}
began = time.perf_counter()
for name in {names!r}:
    spec = f"python:examples.providers.{{name}}:provider"
    target = load_target(spec)
    try:
        cert = certify(target, RunConfig(target_spec=spec, seed=0),
                       suite=suite_for(spec, "ci", fuzz_budget=float("inf"),
                                       fuzz_output_dir={scratch!r}))
    finally:
        target.close()
    out[name] = json.loads(cert.model_dump_json())
usage = resource.getrusage(resource.RUSAGE_SELF)
json.dump({{"wall": time.perf_counter() - began, "cpu": usage.ru_utime + usage.ru_stime,
           "certificates": out}}, open({result!r}, "w"))
"""


def run(freeze: bool, names: list[str], scratch: str) -> dict[str, Any]:
    result = os.path.join(scratch, f"{freeze}.json")
    code = _CHILD.format(root=str(ROOT), names=names, scratch=scratch, result=result,
                         freeze=freeze)
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    with open(result, encoding="utf-8") as handle:
        loaded: dict[str, Any] = json.load(handle)
    return loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=8, help="zoo entries (default 8)")
    parser.add_argument("--seed", type=int, default=0, help="which entries are drawn")
    args = parser.parse_args()
    every = sorted(p.stem for p in ZOO.glob("*.py") if not p.stem.startswith("_"))
    names = random.Random(args.seed).sample(every, min(args.entries, len(every)))
    print(f"load before: {os.getloadavg()[0]:.2f}; {len(names)} zoo entries, seed 0, "
          f"profile ci with its campaign: {', '.join(names)}")
    with tempfile.TemporaryDirectory() as scratch:
        without, frozen = run(False, names, scratch), run(True, names, scratch)
    for mode, figures in (("heap walked", without), ("heap frozen", frozen)):
        print(f"{mode}: wall {figures['wall']:7.1f} s, cpu {figures['cpu']:7.1f} s")
    print(f"ratio walked/frozen: wall {without['wall'] / frozen['wall']:.2f}x, "
          f"cpu {without['cpu'] / frozen['cpu']:.2f}x")
    differs = first_difference(_untimed(without["certificates"]),
                               _untimed(frozen["certificates"]))
    print("certificates the same but for timing: " + (f"NO, first at {differs}" if differs
                                                       else "yes"))


if __name__ == "__main__":
    main()
