"""The draw cache (docs/certify.md#draw-cache): certifying several targets at one seed in one
process, with the kit's kept draws and rounds off and on, the ratio in one run.

Each mode runs in a fresh interpreter (a cache lives in its process), certifying the same zoo
entries whole at seed 0 with the default profile and its campaign, as the zoo test does; the
script prints each mode's wall and CPU time and their ratio, and whether the certificates were
the same (timings aside). Nothing is asserted.

    python benchmarks/bench_draw_cache.py               # 10 entries drawn at --seed 0
    python benchmarks/bench_draw_cache.py --entries 20 --seed 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ZOO = ROOT / "examples" / "providers"
TIMING = ("second", "time", "elapsed", "duration", "started", "finished", "steps_per", "note")

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from subagent_tck.conformance.cli import suite_for
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.targets import load_target
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


def _untimed(data: object) -> object:
    """``data`` without timings, and without the addresses a target's own text may carry (an
    object's repr differs from one process to the next whatever the cache does)."""
    if isinstance(data, str):
        return re.sub(r"0x[0-9a-f]+", "0x?", data)
    if isinstance(data, dict):
        return {k: _untimed(v) for k, v in data.items()
                if not any(word in k.lower() for word in TIMING)}
    if isinstance(data, list):
        return [_untimed(v) for v in data]
    return data


def first_difference(one: Any, other: Any, where: str = "") -> str | None:
    """Where two certificates first differ (a JSON path), or None."""
    if type(one) is not type(other):
        return where or "/"
    if isinstance(one, dict):
        for key in sorted(set(one) | set(other)):
            if key not in one or key not in other:
                return f"{where}/{key}"
            found = first_difference(one[key], other[key], f"{where}/{key}")
            if found:
                return found
        return None
    if isinstance(one, list):
        if len(one) != len(other):
            return f"{where} (lengths {len(one)}, {len(other)})"
        for index, (a, b) in enumerate(zip(one, other, strict=True)):
            found = first_difference(a, b, f"{where}[{index}]")
            if found:
                return found
        return None
    return None if one == other else f"{where}: {str(one)[:120]!r} / {str(other)[:120]!r}"


def run(tag: str, names: list[str], scratch: str, env: dict[str, str] | None = None,
        prelude: str = "") -> dict[str, Any]:
    """Certify ``names`` in a fresh interpreter (``prelude`` run first, ``env`` added to the
    environment): wall and CPU seconds and the certificates."""
    result = os.path.join(scratch, f"{tag}.json")
    code = prelude + _CHILD.format(root=str(ROOT), names=names, scratch=scratch, result=result)
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **(env or {})},
                   check=True)
    with open(result, encoding="utf-8") as handle:
        loaded: dict[str, Any] = json.load(handle)
    return loaded


def entries(description: str, default: int) -> list[str]:
    """The zoo entries a run certifies (``--entries`` drawn at ``--seed``), said on stdout."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--entries", type=int, default=default,
                        help=f"zoo entries (default {default})")
    parser.add_argument("--seed", type=int, default=0, help="which entries are drawn")
    args = parser.parse_args()
    every = sorted(p.stem for p in ZOO.glob("*.py") if not p.stem.startswith("_"))
    names = random.Random(args.seed).sample(every, min(args.entries, len(every)))
    print(f"load before: {os.getloadavg()[0]:.2f}; {len(names)} zoo entries, seed 0, "
          f"profile ci with its campaign: {', '.join(names)}")
    return names


def compare(before: tuple[str, dict[str, Any]], after: tuple[str, dict[str, Any]]) -> None:
    """Each mode's seconds, the ratio of the first to the second, whether they certified the
    same."""
    for mode, figures in (before, after):
        print(f"{mode}: wall {figures['wall']:7.1f} s, cpu {figures['cpu']:7.1f} s")
    (one, first), (other, second) = before, after
    print(f"ratio {one}/{other}: wall {first['wall'] / second['wall']:.2f}x, "
          f"cpu {first['cpu'] / second['cpu']:.2f}x")
    differs = first_difference(_untimed(first["certificates"]),
                               _untimed(second["certificates"]))
    print("certificates the same but for timing: " + (f"NO, first at {differs}" if differs
                                                       else "yes"))


def main() -> None:
    names = entries(__doc__.split("\n\n")[0], 10)
    with tempfile.TemporaryDirectory() as scratch:
        off = run("off", names, scratch, {"SUBAGENT_TCK_DRAW_CACHE": "off"})
        on = run("on", names, scratch, {"SUBAGENT_TCK_DRAW_CACHE": "on"})
    compare(("cache off", off), ("cache on", on))


if __name__ == "__main__":
    main()
