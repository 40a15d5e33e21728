"""Shared fixtures of the fuzzer's tests: the reference target and zoo entries by name."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.engine.runner import PROFILES
from subagent_tck.conformance.transports.builtin import ReferenceTarget, reference_target
from subagent_tck.fuzz.campaign import CampaignResult, run_campaign
from subagent_tck.fuzz.lockstep import Lockstep
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.operations import apply
from subagent_tck.fuzz.step import Divergence, Step
from subagent_tck.reference import Host
from subagent_tck.spec import Edition

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "examples" / "providers"


def zoo_module(name: str) -> ModuleType:
    return importlib.import_module(f"examples.providers.{name}")


def run_steps(target: Target, setup: Setup, steps: list[Step]) -> Divergence | None:
    """Apply ``steps`` in lockstep with the oracle: the divergence they show, if any."""
    lock = Lockstep(target, setup)
    try:
        for step in steps:
            apply(lock, step)
    except Divergence as divergence:
        return divergence
    finally:
        lock.close()
    return None


@contextmanager
def reference_with(host_class: type[Host], name: str) -> Iterator[Target]:
    """The reference built on ``host_class`` (a host whose bug the test plants) and reporting
    ``name``, closed on the way out."""
    target = ReferenceTarget(host_class=host_class, name=name)
    try:
        yield target
    finally:
        target.close()


def ci_campaign(target: Target, seed: int, output: Path, budget: float = float("inf"),
                editions: Sequence[Edition] = ()) -> CampaignResult:
    """A campaign against ``target`` at ``seed`` with the ``ci`` profile's examples, no
    database, its files in ``output``."""
    return run_campaign(target, seed=seed, budget_seconds=budget,
                        max_examples=PROFILES["ci"].fuzz_examples, database_dir=None,
                        output_dir=output, editions=editions)


@contextmanager
def found_by_ci_campaign(host_class: type[Host], name: str, rule: str, seed: int,
                         output: Path) -> Iterator[tuple[Target, CampaignResult]]:
    """The ``ci`` campaign at ``seed`` against the reference built on ``host_class`` (a bug the
    test plants) must find ``rule``: the target (open inside the block, to replay the finding)
    and the campaign's result."""
    with reference_with(host_class, name) as target:
        result = ci_campaign(target, seed, output)
        assert result.finding is not None, result.report()
        assert result.finding.rule == rule, result.report()
        yield target, result


def subtle_names() -> list[str]:
    """The zoo entries marked ``SUBTLE = True`` (read from the source, without importing)."""
    return sorted(
        p.stem for p in ZOO.glob("*.py")
        if not p.stem.startswith("_") and "\nSUBTLE = True" in p.read_text(encoding="utf-8")
    )


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run from the repository root, where ``examples.providers`` is importable."""
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    yield ROOT


@pytest.fixture
def reference() -> Iterator[Target]:
    target = reference_target()
    yield target
    target.close()
