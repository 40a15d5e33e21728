"""Claude Code's version trend (docs/claude-code.md#trend): the matrix's certification of Claude
Code, run on several published versions, in one table.

Run from the repository root::

    python tools/claude_code_trend.py --run        # install each version of VERSIONS in a
                                                   # scratch folder outside the project,
                                                   # certify it, store, rebuild (minutes)
    python tools/claude_code_trend.py --run 2.1.63 # the same for the versions named
    python tools/claude_code_trend.py              # rebuild the table from the stored
                                                   # certificates (seconds, nothing runs)
    python tools/claude_code_trend.py --check      # exit 1 when the table is stale

Every version is certified exactly as ``tools/make_matrix.py --refresh claude-code`` certifies
the pinned one (the same command, the pinned version's baseline, seed 0), with the adapter
pointed at that version's install (``SUBAGENT_TCK_CLAUDE_CODE``). The baseline is the pinned
version's on purpose: the table shows what a CI job that bumps Claude Code would see. Each
certificate is stored in ``docs/matrix/certificates/`` (``claude-code.json`` for the pinned
version, ``claude-code-VERSION.json`` for the others), so the matrix shows the versions side by
side and draws their trend. The table is made from the stored certificates alone, and
``tests/reports/test_matrix_docs.py`` fails when it is stale. A version whose run stopped early
or had errors is not stored (make_matrix's rule: no result to publish); its old certificate is
kept. Each check's timeout is ``TIMEOUT`` (the oldest versions are slow).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


# tools/make_matrix.py: the home of the matrix's sources and stored certificates (a script's
# folder is on sys.path when it runs; an importer of this module may not have put it there)
sys.path.insert(0, str(ROOT / "tools"))
import make_matrix  # noqa: E402

PAGE = ROOT / "docs" / "claude-code.md"
BEGIN = "<!-- trend: made by tools/claude_code_trend.py, do not edit -->"
END = "<!-- trend end -->"
PACKAGE = "@anthropic-ai/claude-code"
#: The oldest version the adapter runs, the first of each behaviour of docs/claude-code.md's
#: version table (the delegation tool renamed, delegation from a child, a fixed cap, the
#: depth setting), and the pinned newest.
VERSIONS = ("2.1.19", "2.1.63", "2.1.172", "2.1.197", "2.1.217", "2.1.332")
#: Outside the project: a scratch folder per version (npm install there).
SCRATCH = Path.home() / ".cache" / "subagent-tck" / "claude-code"
#: A check's timeout (after the matrix command's own: the last one counts). Versions before
#: 2.1.113 run cli.js on node, seconds per `claude -p`: 2.1.19's TF-10 overran 180 s.
TIMEOUT = 600
FAMILIES = ("TF", "PE", "DE", "CA", "FR", "EN", "ST", "SP", "MO")
OUTCOMES = ("pass", "fail", "expected-fail", "unexpected-pass", "not-applicable", "error")


def pinned() -> str:
    manifest = json.loads((ROOT / "adapters" / "claude-code" / "package.json")
                          .read_text(encoding="utf-8"))
    return str(manifest["dependencies"][PACKAGE])


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def stored_name(version: str) -> str:
    return "claude-code.json" if version == pinned() else f"claude-code-{version}.json"


# --- the table -------------------------------------------------------------------------------


def certificates() -> list[tuple[str, Path]]:
    """The stored certificates of Claude Code, oldest version first."""
    out = []
    for path in make_matrix.stored():
        document = json.loads(path.read_text(encoding="utf-8"))
        info = document["target"]["info"]
        if str(info["name"]).startswith("claude-code"):
            out.append((str(info["version"]), path))
    return sorted(out, key=lambda vp: _release(vp[0]))


def _counts(document: dict[str, Any]) -> dict[str, int]:
    counts = dict.fromkeys(OUTCOMES, 0)
    for rule in document["rules"]:
        counts[rule["outcome"]] = counts.get(rule["outcome"], 0) + 1
    return counts


def _families(document: dict[str, Any]) -> str:
    """Per family: rules passed (or expected to fail) of the rules judged at all."""
    cells = []
    for family in FAMILIES:
        rules = [r for r in document["rules"] if r["family"] == family]
        judged = [r for r in rules if r["outcome"] != "not-applicable"]
        held = [r for r in judged if r["outcome"] == "pass"]
        cells.append(f"{family} {len(held)}/{len(judged)}" if judged else f"{family} –")
    return ", ".join(cells)


def _changes(old: Path, new: Path) -> str:
    from subagent_tck.conformance.core.certificate_file import read_raw
    from subagent_tck.conformance.core.diff import compare

    before, before_raw = read_raw(str(old))
    after, after_raw = read_raw(str(new))
    diff = compare(before, after, before_raw, after_raw)
    moved = [f"{c.rule} {c.old.value if c.old else 'absent'} → {c.new.value if c.new else 'absent'}"
             for c in diff.rules if c.provider is None]
    started = sum(1 for a in diff.assertions if a.change == "started")
    stopped = sum(1 for a in diff.assertions if a.change == "stopped")
    parts = ["; ".join(moved) if moved else "no rule changed"]
    parts.append(f"assertions: {started} started, {stopped} stopped failing")
    if diff.catalogue_changed:
        parts.append("catalogue changed")
    return ". ".join(parts)


def table() -> str:
    rows = certificates()
    lines = [BEGIN, "",
             "| version | verdict | pass | fail | expected-fail | unexpected-pass | not applicable "
             "| passed of judged, per family | changed from the row above (`subagent-tck diff`) |",
             "|---|---|---|---|---|---|---|---|---|"]
    previous: Path | None = None
    for version, path in rows:
        document = json.loads(path.read_text(encoding="utf-8"))
        counts = _counts(document)
        change = _changes(previous, path) if previous is not None else "(first row)"
        lines.append(
            f"| {version} | {document['verdict']} | {counts['pass']} | {counts['fail']} | "
            f"{counts['expected-fail']} | {counts['unexpected-pass']} | "
            f"{counts['not-applicable']} | {_families(document)} | {change} |")
        previous = path
    if not rows:
        lines.append("| (no stored certificate: run `python tools/claude_code_trend.py --run`) "
                     "| | | | | | | | |")
    return "\n".join([*lines, "", END])


def page_with_table() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{PAGE.relative_to(ROOT)} has no trend markers ({BEGIN!r} ... "
                         f"{END!r}): put them where the table goes")
    return text[:start] + table() + text[end + len(END):]


# --- running versions ------------------------------------------------------------------------


def install(version: str, scratch: Path) -> Path:
    """``npm install PACKAGE@VERSION`` in ``scratch/VERSION`` (once); that folder."""
    folder = scratch / version
    if (folder / "node_modules" / PACKAGE / "package.json").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix",
                           str(folder), f"{PACKAGE}@{version}"], capture_output=True, text=True,
                          check=False, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"npm install {PACKAGE}@{version} failed in {folder}:\n"
                         f"{done.stderr[-2000:]}")
    return folder


def certify(version: str, scratch: Path) -> bool:
    """Certify ``version`` as the matrix certifies the pinned one; store it. False when no
    certificate worth storing came out."""
    source = next(s for s in make_matrix.sources() if s.name == "claude-code")
    env = dict(os.environ)
    if version != pinned():
        env["SUBAGENT_TCK_CLAUDE_CODE"] = str(install(version, scratch))
    elif not make_matrix._installed("adapters/claude-code"):
        print(f"{version}: run `cd adapters/claude-code && npm ci` first (the pinned version)")
        return False

    def same_version(document: dict[str, Any]) -> str | None:
        ran = document["target"]["info"]["version"]
        return None if ran == version else f"the adapter ran {ran}"

    document, why = make_matrix.certify_into((*source.args, "--timeout", str(TIMEOUT)),
                                             make_matrix.CERTIFICATES / stored_name(version),
                                             env, same_version)
    if why is not None:
        print(f"{version}: {why}")
        return False
    assert document is not None
    print(f"{version}: {document['verdict']}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", nargs="*", metavar="VERSION",
                        help=f"certify these versions (none named: {' '.join(VERSIONS)})")
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    parser.add_argument("--scratch", type=Path, default=SCRATCH,
                        help=f"where each version is installed (default {SCRATCH})")
    args = parser.parse_args(argv)
    if args.check:
        if PAGE.read_text(encoding="utf-8") != page_with_table():
            print("docs/claude-code.md#trend is stale: run python tools/claude_code_trend.py")
            return 1
        return 0
    failed = 0
    if args.run is not None:
        for version in args.run or VERSIONS:
            failed += not certify(version, args.scratch.resolve())
        make_matrix.rebuild()
    PAGE.write_text(page_with_table(), encoding="utf-8")
    print(f"docs/claude-code.md#trend: {len(certificates())} version(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
