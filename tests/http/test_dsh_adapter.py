"""The real DSH (pinned in package.json) certifies through adapters/dsh with its baseline.

One ``subagent-tck certify`` run against ``cmd:node adapters/dsh/server.mjs`` in the
``request-controls`` edition with ``adapters/dsh/baseline.toml`` must exit 0: every rule passes,
is not applicable, or is a listed DSH divergence (``expected-fail``), and no listed rule passes.
Each baseline entry must also be needed: its rule fails in the same run's certificate. At a fixed
seed that is the same as "without the baseline the command fails on exactly the listed rules
(and providers)": the baseline only relabels the failures it names, so one run says both (a
second run without it took a certify's minutes in every CI run to repeat it).

The same holds in the ``preset-composition`` edition, where the deployment's presets are DSH
agent presets (``adapters/dsh/src/presets.mjs``), with ``adapters/dsh/baseline.presets.toml``;
and for DSH's continuable path (``server.mjs --continuable``: the kit's start, a
child's turn and resume go through ``ctx.subagents.startContinuable``/``followup`` and DSH's
cold resume) on the rules that path answers (``CONTINUABLE_RULES``), with
``adapters/dsh/baseline.continuable.toml``.

The adapter is installed here when it is not yet (``npm ci`` in adapters/dsh, under a lock so
parallel test runs install once). That needs the npm registry: when it cannot be reached the
test fails, loudly, with npm's own words and the command to retry; it never skips.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from npm_install import ensure_installed

from subagent_tck.conformance.core.baseline import load_baseline

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "dsh"
TIMEOUT = 600
BASELINE = "adapters/dsh/baseline.toml"
CONTINUABLE_BASELINE = "adapters/dsh/baseline.continuable.toml"
PRESETS_BASELINE = "adapters/dsh/baseline.presets.toml"
#: The rules DSH's continuable path answers through the driver API (docs/dsh.md, "The
#: continuable path"): its children are resident only while they have work, so rules that
#: address an idle child as a parent or read it live (DE, FR-01/02/05, EN-03...) stay with the
#: one-shot run; CA-02 is left out because the path never refuses (nothing to leave untouched).
CONTINUABLE_RULES = ("FR-04", "CA-01", "CA-03", "CA-05")


def _certify(output: Path, path: str, *, baseline: bool = True) -> subprocess.CompletedProcess[str]:
    """One certify run of ``path``: ``one-shot``, ``continuable`` or ``presets``."""
    ensure_installed(ADAPTER, timeout=TIMEOUT)
    node = shutil.which("node")
    if node is None:
        pytest.fail("`node` is not on PATH: install Node.js (20 or later; the adapter runs DSH "
                    "with the Node 22 that `npm ci` installs)")
    continuable = path == "continuable"
    command = [sys.executable, "-m", "subagent_tck.conformance.cli", "certify",
               "--target", f"cmd:{node} adapters/dsh/server.mjs"
               + (" --continuable" if continuable else ""),
               "--edition", "preset-composition" if path == "presets" else "request-controls",
               "--seed", "0",
               *(["--baseline", BASELINES[path]] if baseline else []),
               *(arg for rule in CONTINUABLE_RULES for arg in ("--rule", rule)
                 if continuable),
               "--format", "json", "--output", str(output)]
    try:
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"certify did not finish within {TIMEOUT} s:\n{exc.stdout!s}\n{exc.stderr!s}")


def _cells(certificate: dict[str, Any], *,
           continuable: bool = False) -> dict[tuple[str, str | None], str]:
    """Every cell's outcome (of the selected rules only, on the continuable path)."""
    return {(rule["id"], cell["provider"]): cell["outcome"]
            for rule in certificate["rules"] for cell in rule["providers"]
            if not continuable or rule["id"] in CONTINUABLE_RULES}


BASELINES = {"one-shot": BASELINE, "continuable": CONTINUABLE_BASELINE,
             "presets": PRESETS_BASELINE}
PATHS = list(BASELINES)


@pytest.mark.parametrize("path", PATHS)
def test_dsh_certifies_with_its_baseline_and_every_entry_is_needed(
        tmp_path: Path, path: str) -> None:
    output = tmp_path / "dsh.json"
    continuable = path == "continuable"
    result = _certify(output, path)
    tail = "\n".join((result.stdout + "\n" + result.stderr).splitlines()[-40:])
    assert output.is_file(), f"certify wrote no certificate (exit {result.returncode}):\n{tail}"
    certificate = json.loads(output.read_text(encoding="utf-8"))
    cells = _cells(certificate, continuable=continuable)
    bad = {cell for cell, outcome in cells.items()
           if outcome not in ("pass", "not-applicable", "expected-fail")}
    assert not bad, f"unexpected outcomes {sorted(bad, key=str)}:\n{tail}"
    assert result.returncode == 0, f"certify exited {result.returncode}:\n{tail}"
    listed = {entry.rule for entry in _entries(path)}
    expected = {rule for (rule, _), outcome in cells.items() if outcome == "expected-fail"}
    assert listed == expected, f"baseline entries whose rule did not fail: {listed - expected}"
    # cell by cell: a listed provider's cell failed (it is expected-fail), an unlisted one passed
    cells_listed = _listed(cells, path)
    needless = {c for c in cells_listed if cells[c] not in ("expected-fail", "not-applicable")}
    assert not needless, f"listed cells that did not fail: {sorted(needless, key=str)}"


def _entries(path: str) -> list[Any]:
    return load_baseline(ROOT / BASELINES[path]).entries


def _listed(cells: dict[tuple[str, str | None], str],
            path: str) -> set[tuple[str, str | None]]:
    """The cells the baseline lists: an entry with a provider lists that provider's cell, one
    without lists every cell of its rule."""
    listed: set[tuple[str, str | None]] = set()
    for entry in _entries(path):
        listed |= {(rule, provider) for rule, provider in cells
                   if rule == entry.rule and entry.provider in (None, provider)}
    return listed
