"""The draw cache (docs/certify.md#draw-cache): a property that passed whole runs its kept
states again without drawing; a state that fails hands over to Hypothesis with the context put
back, so the recorded failures are the uncached run's; the key holds what the draws depend on,
and verify mode says so when it does not."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from subagent_tck.conformance.core.outcome import Failure
from subagent_tck.conformance.engine import draw_cache, for_all
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.spec import ErrorCode, TckError

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Host:
    """A check's context as far as a property uses it, with a field a case changes."""

    seed: int = 0
    failures: list[Failure] = field(default_factory=list)
    drawn_state: tuple[Any, ...] = ()
    placed: int = 0
    seen: list[Any] = field(default_factory=list)

    def close(self) -> None:
        pass


@pytest.fixture(autouse=True)
def fresh_cache(kit_caches: Any) -> Any:
    """Each test starts with an empty cache (tests/conftest.py kit_caches)."""
    return kit_caches.draws


def run(host: Host, strategy: Any, fails_on: Any = None, examples: int = 20) -> None:
    def body(value: Any) -> None:
        host.placed += 1
        host.seen.append(value)
        if fails_on is not None and fails_on(value):
            host.failures.append(Failure(rule="TF-01", check="drawn", title="drawn",
                                         message=f"bad {value!r}"))

    for_all.run_property(host, strategy, body, examples)


def test_a_property_that_passed_whole_runs_the_same_states_again_without_drawing(
    fresh_cache: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = Host(), Host()
    run(first, st.lists(st.integers(), max_size=4))
    assert first.seen and not first.failures

    def no_drawing(*args: Any) -> None:
        raise AssertionError("Hypothesis drew a property whose states were kept")

    monkeypatch.setattr(for_all, "_drawn", no_drawing)
    run(second, st.lists(st.integers(), max_size=4))
    assert second.seen == first.seen and fresh_cache.hits == 1


def test_a_kept_state_that_fails_hands_over_to_hypothesis_as_if_nothing_was_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    strategy = st.integers(0, 1000)
    warm = Host()
    run(warm, strategy)
    bad = sorted(warm.seen)[len(warm.seen) // 2]

    cached = Host()
    run(cached, strategy, fails_on=lambda v: v >= bad)
    monkeypatch.setenv(draw_cache.ENV, "off")
    uncached = Host()
    run(uncached, strategy, fails_on=lambda v: v >= bad)

    assert cached.failures and cached.failures == uncached.failures
    # the replay's cases left no trace: what a case changes counts the uncached run's only
    assert cached.placed == uncached.placed
    assert cached.seen[-uncached.placed:] == uncached.seen


def test_a_refused_or_crashing_kept_state_is_drawn_by_hypothesis_again() -> None:
    strategy = st.integers(0, 50)
    run(Host(), strategy)
    host = Host()
    calls = []

    def body(value: Any) -> None:
        calls.append(value)
        if len(calls) == 3:
            raise for_all.Inexpressible()

    for_all.run_property(host, strategy, body, 20)
    assert not host.failures and len(calls) > 3


def test_closed_over_values_and_budgets_are_part_of_the_key() -> None:
    def made(size: int) -> Any:
        return st.integers(0, 10).map(lambda v: v * size)

    cache = draw_cache.DrawCache()
    assert cache.key(made(2), 0, 10) == cache.key(made(2), 0, 10)
    assert cache.key(made(2), 0, 10) != cache.key(made(3), 0, 10)
    assert cache.key(made(2), 0, 10) != cache.key(made(2), 1, 10)
    assert cache.key(made(2), 0, 10) != cache.key(made(2), 0, 11)


def test_a_strategy_that_names_a_value_by_its_address_is_never_kept() -> None:
    marker = object()
    strategy = st.integers().map(lambda v: (marker, v))
    assert draw_cache.fingerprint(strategy) is None
    host = Host()
    run(host, strategy)
    assert host.seen and len(draw_cache.CACHE) == 0
    assert draw_cache.CACHE.hits == draw_cache.CACHE.misses == 0


def test_verify_mode_fails_when_the_key_misses_what_the_draws_depend_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(draw_cache, "fingerprint", lambda strategy: "one key for all")
    monkeypatch.setenv(draw_cache.ENV, "verify")
    run(Host(), st.integers(0, 10))
    with pytest.raises(draw_cache.DrawCacheMismatch, match="kept other states"):
        run(Host(), st.text(max_size=3))


def test_a_bad_setting_is_a_usage_error_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(draw_cache.ENV, "sometimes")
    target = load_target("reference")
    try:
        with pytest.raises(TckError) as caught:
            certify(target, RunConfig(target_spec="reference", seed=0))
    finally:
        target.close()
    assert caught.value.code is ErrorCode.USAGE
    assert "SUBAGENT_TCK_DRAW_CACHE" in caught.value.message and "off" in caught.value.message


_TIMING = ("second", "time", "elapsed", "duration", "started", "finished", "steps_per")


def _untimed(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _untimed(v) for k, v in data.items()
                if not any(word in k.lower() for word in _TIMING) and k != "note"}
    if isinstance(data, list):
        return [_untimed(v) for v in data]
    return data


def _certificate(spec: str) -> Any:
    target = load_target(spec)
    try:
        cert = certify(target, RunConfig(target_spec=spec, seed=0, rules=("PE-01", "PE-05",
                                                                          "TF-01", "TF-12")))
    finally:
        target.close()
    return _untimed(json.loads(cert.model_dump_json()))


@pytest.mark.once
def test_whole_certifications_in_verify_mode_keep_what_hypothesis_draws_and_change_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)  # python:examples.providers.NAME:provider works from the root
    monkeypatch.syspath_prepend(str(ROOT))
    spec = "python:examples.providers.allow_filters_locals:provider"
    monkeypatch.setenv(draw_cache.ENV, "off")
    plain = [_certificate("reference"), _certificate(spec)]
    monkeypatch.setenv(draw_cache.ENV, "verify")
    verified = [_certificate("reference"), _certificate(spec), _certificate("reference")]
    monkeypatch.setenv(draw_cache.ENV, "on")
    cached = [_certificate("reference"), _certificate(spec)]
    assert draw_cache.CACHE.hits > 0
    assert verified[:2] == plain == cached


def test_a_strategy_over_its_checks_context_is_keyed_by_what_a_strategy_may_read() -> None:
    from subagent_tck.conformance.engine.check import CheckContext
    from subagent_tck.conformance.engine.checks import load_checks
    from subagent_tck.spec import Edition

    chk = next(iter(load_checks().values()))

    def context(portable: bool, markers: int = 0) -> CheckContext:
        return CheckContext(target=None, check=chk,  # type: ignore[arg-type]
                            edition=Edition.PRESET_COMPOSITION, provider=None, providers=[],
                            seed=0, max_examples=10, portable_variables=portable,
                            markers=markers)

    def made(ctx: CheckContext) -> Any:
        return st.integers().map(lambda v: (ctx.portable_variables, v))

    cache = draw_cache.DrawCache()
    # what a case changes as it runs (markers handed out) is not what a strategy reads
    assert cache.key(made(context(False)), 0, 10) == cache.key(made(context(False, 5)), 0, 10)
    assert cache.key(made(context(False)), 0, 10) != cache.key(made(context(True)), 0, 10)
