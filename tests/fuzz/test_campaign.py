"""Campaigns: fuzzing finds every subtle zoo entry and names its rule; the reference shows no
divergence; a replay file reproduces a finding alone; workers share findings through a database.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from subagent_tck.conformance.target import Target
from subagent_tck.fuzz.campaign import replay, run_campaign
from subagent_tck.fuzz.replay import load_replay

from .conftest import ROOT, subtle_names, zoo_module

#: A guard against a hang, not a goal: with seed 0 the campaign is deterministic and finds every
#: subtle entry within a few seconds on an idle machine (medians in benchmarks/bench_fuzz.py);
#: the margin keeps the test green on a loaded CI machine.
BUDGET = 300.0


def test_the_zoo_has_subtle_entries_for_the_campaign_to_find() -> None:
    # entries leave SUBTLE once the checks' generated cases catch them (docs/fuzz.md): the ones
    # that remain are the bugs only the campaign is sure to reach
    assert len(subtle_names()) >= 3


@pytest.mark.parametrize("name", subtle_names())
def test_fuzzing_finds_a_subtle_entry_and_names_the_rule_it_breaks(
    at_root: Path, tmp_path: Path, name: str
) -> None:
    module = zoo_module(name)
    target = module.provider()
    result = run_campaign(target, seed=0, budget_seconds=BUDGET, max_examples=10**6,
                          database_dir=None, output_dir=tmp_path)
    assert result.finding is not None, f"{name}: no divergence in {result.seconds:.0f}s"
    assert result.finding.rule == module.BREAKS, result.report()
    assert result.replay_path is not None and Path(result.replay_path).is_file()
    assert len(result.counterexample) <= 8, result.report()  # shrunk to a readable size


def test_the_reference_shows_no_divergence(reference: Target, tmp_path: Path) -> None:
    result = run_campaign(reference, seed=0, max_examples=21, budget_seconds=BUDGET,
                          database_dir=tmp_path / "db", output_dir=tmp_path)
    assert result.finding is None and result.error is None, result.report()
    assert result.examples == 21 and result.steps > 200
    assert {"TF-01", "TF-12", "DE-03", "DE-09", "FR-01", "CA-01"} <= set(result.rules_exercised)
    assert not list(tmp_path.glob("*.json"))


def test_a_replay_file_reproduces_the_divergence_alone(at_root: Path, tmp_path: Path) -> None:
    module = zoo_module("case_insensitive_allow")
    found = run_campaign(module.provider(), seed=0, budget_seconds=BUDGET, max_examples=10**6,
                         database_dir=None, output_dir=tmp_path)
    assert found.replay_path is not None and found.finding is not None
    data = json.loads(Path(found.replay_path).read_text())
    assert data["version"] == 1 and data["steps"] and all("op" in s for s in data["steps"])
    recorded = load_replay(found.replay_path)
    assert recorded.finding == found.finding
    again = replay(module.provider(), found.replay_path)  # a fresh target, only the file
    assert again.reproduced is True and again.finding == found.finding
    assert again.counterexample == found.counterexample


def test_replaying_a_finding_against_the_reference_shows_no_divergence(
    at_root: Path, tmp_path: Path, reference: Target
) -> None:
    module = zoo_module("sdk_bindings_cached")
    found = run_campaign(module.provider(), seed=0, budget_seconds=BUDGET, max_examples=10**6,
                         database_dir=None, output_dir=tmp_path)
    assert found.replay_path is not None
    fixed = replay(reference, found.replay_path)
    assert fixed.finding is None and fixed.reproduced is False


WORKER = """
import sys
sys.path.insert(0, {root!r})
from examples.providers.{name} import provider
from subagent_tck.fuzz.campaign import run_campaign
result = run_campaign(provider(), seed=0, budget_seconds=60, max_examples=10**6,
                      database_dir={db!r}, output_dir=None,
                      target_id="python:examples.providers.{name}:provider")
print(result.finding.rule if result.finding else "none")
"""


def test_two_workers_share_findings_through_one_database_directory(
    at_root: Path, tmp_path: Path
) -> None:
    name, db = "sdk_bindings_cached", str(tmp_path / "fuzz-db")
    spec = f"python:examples.providers.{name}:provider"
    first = subprocess.run(
        [sys.executable, "-c", WORKER.format(root=str(ROOT), name=name, db=db)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert first.stdout.strip() == "TF-12", first.stderr
    module = zoo_module(name)
    # A second worker with another seed and a budget of one generated example: alone it
    # finds nothing, with the shared database it replays the first worker's finding.
    alone = run_campaign(module.provider(), seed=7, max_examples=1, database_dir=None,
                         output_dir=None, target_id=spec)
    shared = run_campaign(module.provider(), seed=7, max_examples=1, database_dir=db,
                          output_dir=None, target_id=spec)
    assert alone.finding is None
    assert shared.finding is not None and shared.finding.rule == "TF-12"
    other = run_campaign(module.provider(), seed=7, max_examples=1, database_dir=db,
                         output_dir=None, target_id="another-target")
    assert other.finding is None  # findings are kept per target


def test_a_seed_runs_the_same_steps_whatever_the_timing(reference: Target) -> None:
    runs = [run_campaign(reference, seed=3, max_examples=9, budget_seconds=BUDGET,
                         database_dir=None, output_dir=None) for _ in range(2)]
    assert runs[0].examples == runs[1].examples == 9
    assert (runs[0].steps, runs[0].operations) == (runs[1].steps, runs[1].operations)
