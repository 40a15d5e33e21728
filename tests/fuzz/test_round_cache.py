"""The campaign's kept rounds (docs/certify.md#draw-cache): a round that ran clean runs again
from its kept codes without Hypothesis; a kept round that meets a divergence hands over to
Hypothesis with the campaign's counts put back, so the result is the uncached one; verify mode
says when a key misses what the codes depend on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase

from subagent_tck.conformance.engine import draw_cache
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.fuzz import campaign, round_cache
from subagent_tck.fuzz.campaign import CampaignResult, run_campaign
from subagent_tck.fuzz.machine import machine_for

from .conftest import zoo_module

PHASES = (Phase.explicit, Phase.reuse, Phase.generate)


@pytest.fixture(autouse=True)
def fresh_cache(kit_caches: Any) -> Any:
    """Each test starts with an empty cache (tests/conftest.py kit_caches)."""
    return kit_caches.rounds


def _run(target: Any, tmp_path: Path, seed: int = 3, examples: int = 9) -> CampaignResult:
    try:
        return run_campaign(target, seed=seed, budget_seconds=float("inf"),
                            max_examples=examples, database_dir=None, output_dir=tmp_path)
    finally:
        target.close()


def _same(one: CampaignResult, other: CampaignResult) -> tuple[Any, ...]:
    return ((one.examples, one.steps, one.operations, one.finding, one.counterexample),
            (other.examples, other.steps, other.operations, other.finding, other.counterexample))


def test_a_round_that_ran_clean_runs_again_without_hypothesis(
    fresh_cache: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    first = _run(reference_target(), tmp_path)
    assert first.finding is None and len(fresh_cache) > 0

    def no_hypothesis(*args: Any) -> Any:
        raise AssertionError("Hypothesis ran a round that was kept")

    monkeypatch.setattr(campaign, "state_machine_test", no_hypothesis)
    again = _run(reference_target(), tmp_path)
    left, right = _same(first, again)
    assert left == right and fresh_cache.hits == len(fresh_cache)


def test_a_kept_round_that_meets_a_divergence_is_run_by_hypothesis_as_if_nothing_was_kept(
    at_root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    broken = zoo_module("case_insensitive_allow")
    _run(reference_target(), tmp_path / "warm", examples=40)
    cached = _run(broken.provider(), tmp_path / "cached", examples=40)
    monkeypatch.setenv(draw_cache.ENV, "off")
    uncached = _run(broken.provider(), tmp_path / "uncached", examples=40)
    assert uncached.finding is not None
    left, right = _same(cached, uncached)
    assert left == right


def test_a_round_is_kept_under_its_seed_size_and_phases_and_never_with_a_database() -> None:
    target = reference_target()
    try:
        machine = machine_for(target)
        key = round_cache.round_key(machine, 1, 3, 24, PHASES, None)
        assert key is not None
        assert key != round_cache.round_key(machine, 2, 3, 24, PHASES, None)
        assert key != round_cache.round_key(machine, 1, 6, 24, PHASES, None)
        assert key != round_cache.round_key(machine, 1, 3, 48, PHASES, None)
        assert key != round_cache.round_key(machine, 1, 3, 24, PHASES[1:], None)
        assert round_cache.round_key(machine, 1, 3, 24, PHASES, object()) is None
    finally:
        target.close()


def test_a_round_a_call_of_which_raised_is_not_kept(fresh_cache: Any) -> None:
    recording = round_cache.Recording()
    recording.begin()
    with pytest.raises(ValueError), recording.call(b"\x00"):
        raise ValueError("a divergence, a refusal")
    round_cache.keep(("key", 0, 1, 1, ()), recording)
    assert recording.spoiled and len(fresh_cache) == 0


def test_verify_mode_fails_when_a_kept_round_differs_from_what_hypothesis_ran(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    real = round_cache.round_key

    def seedless(machine: Any, seed: int, *rest: Any) -> Any:
        key = real(machine, seed, *rest)
        return None if key is None else (key[0], 0, *key[2:])  # the seed left out

    monkeypatch.setattr(round_cache, "round_key", seedless)
    monkeypatch.setenv(draw_cache.ENV, "verify")
    _run(reference_target(), tmp_path, seed=1, examples=3)
    with pytest.raises(draw_cache.DrawCacheMismatch, match="another round"):
        _run(reference_target(), tmp_path, seed=2, examples=3)
