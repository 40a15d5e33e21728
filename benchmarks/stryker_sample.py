"""Benchmark: StrykerJS over a seeded sample of lines of implementations/javascript/src/.

    cd implementations/javascript && npm install && cd ../..
    nice -n 15 python benchmarks/stryker_sample.py [--sample N] [--seed S] [--concurrency N]
                                                   [--list] [--lines src/F.mjs:L,...]

Every mutant StrykerJS makes on N lines drawn at random (seeded) from the code lines of src/
(blank, comment-only and import lines are not drawn) is tested by one
``subagent-tck certify --target 'cmd:node server.mjs'`` (stryker.config.mjs, through
benchmarks/certify_probe.py). Prints the mutants made, killed, timeouts, survived and the ratio,
and every survivor. ``--lines`` runs the given lines instead of a sample (a sample's survivors
again, after the kit changed). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "implementations" / "javascript"
REPORT = JS / "reports" / "mutation" / "mutation.json"
NOT_CODE = re.compile(r"^\s*(//.*|/?\*.*|import\b.*|export \{.*\} from.*|[{}()\[\];,]*)\s*$")


def code_lines() -> list[tuple[str, int]]:
    lines = []
    for path in sorted((JS / "src").glob("*.mjs")):
        rel = str(path.relative_to(JS))
        for n, text in enumerate(path.read_text("utf-8").splitlines(), 1):
            if text.strip() and not NOT_CODE.match(text):
                lines.append((rel, n))
    return lines


def lines_arg(value: str) -> list[tuple[str, int]]:
    """``src/a.mjs:12,src/b.mjs:7`` as (file, line) pairs."""
    out = []
    for item in filter(None, (part.strip() for part in value.split(","))):
        name, _, number = item.rpartition(":")
        if not name or not number.isdigit():
            raise argparse.ArgumentTypeError(f"{item!r} is not FILE:LINE (e.g. src/host.mjs:119)")
        out.append((name, int(number)))
    if not out:
        raise argparse.ArgumentTypeError("give at least one FILE:LINE")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=8, metavar="N",
                        help="lines drawn (default 8); every mutant on them is run")
    parser.add_argument("--seed", type=int, default=0, metavar="S")
    parser.add_argument("--concurrency", type=int, default=None, metavar="N",
                        help="certify runs at once (default: stryker.config.mjs's 1)")
    parser.add_argument("--list", action="store_true", help="print the lines drawn and stop")
    parser.add_argument("--lines", type=lines_arg, default=None, metavar="F:L,...",
                        help="run these code lines (src/F.mjs:L, comma-separated) instead of a "
                        "sample, e.g. a sample's survivors again")
    args = parser.parse_args(argv)

    population = code_lines()
    if args.lines is not None:
        unknown = [f"{f}:{n}" for f, n in args.lines if (f, n) not in set(population)]
        if unknown:
            parser.error(f"--lines: not code lines of src/: {', '.join(unknown)} (blank, "
                         "comment and import lines have no mutants)")
        chosen = sorted(set(args.lines))
        print(f"src/: {len(population)} code lines; {len(chosen)} given: "
              + ", ".join(f"{f}:{n}" for f, n in chosen))
    else:
        chosen = sorted(random.Random(args.seed).sample(population, min(args.sample,
                                                                        len(population))))
        print(f"src/: {len(population)} code lines; {len(chosen)} drawn at seed {args.seed}: "
              + ", ".join(f"{f}:{n}" for f, n in chosen))
    if args.list:
        return 0
    npx = shutil.which("npx")
    if npx is None or not (JS / "node_modules" / "@stryker-mutator" / "core").is_dir():
        print("error: StrykerJS is not installed; run `npm install` in implementations/javascript",
              file=sys.stderr)
        return 2
    REPORT.unlink(missing_ok=True)
    mutate = ",".join(f"{f}:{n}-{n}" for f, n in chosen)
    env = dict(os.environ, PYTHON=sys.executable)
    began = time.monotonic()
    extra = [] if args.concurrency is None else ["--concurrency", str(args.concurrency)]
    proc = subprocess.run([npx, "stryker", "run", "--mutate", mutate, *extra], cwd=JS, env=env,
                          check=False)
    elapsed = time.monotonic() - began
    if not REPORT.is_file():
        print(f"error: StrykerJS wrote no report (exit {proc.returncode}); see its output above",
              file=sys.stderr)
        return 2
    report = json.loads(REPORT.read_text("utf-8"))
    mutants = [(name, m) for name, f in report["files"].items() for m in f["mutants"]]
    status = Counter(m["status"] for _, m in mutants)
    killed = status["Killed"] + status["Timeout"]
    valid = len(mutants) - status["CompileError"] - status["RuntimeError"]
    print(f"\nStrykerJS: {len(mutants)} mutants on {len(chosen)} lines; killed {killed} "
          f"(timeouts {status['Timeout']}), survived {status['Survived']}, "
          f"no coverage {status['NoCoverage']}, invalid {len(mutants) - valid}; "
          f"killed/valid {killed / valid:.1%}" if valid else "no valid mutant")
    for name, m in mutants:
        if m["status"] in ("Survived", "NoCoverage"):
            loc = m["location"]["start"]
            print(f"  survivor {name}:{loc['line']} {m['mutatorName']}: "
                  f"{m.get('replacement', '')!r}")
    print(f"wall time {elapsed / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
