"""Supplementary checks (the fuzz campaign of ``--profile thorough``): they add failures and
errors to the cells the other checks decide, and decide nothing by what they did not find."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import ModuleType

from subagent_tck.conformance.core.certificate import Certificate, Verdict
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.runner import RunConfig, Suite, certify


def with_supplement(fakes: ModuleType, function: Callable[[CheckContext], None],
                    rules: tuple[str, ...] = ("TF-91", "DE-91", "FR-91", "ST-91"),
                    **fields: object) -> Suite:
    check = Check("supplement", rules, function, per_provider=False, supplementary=True,
                  **fields)  # type: ignore[arg-type]
    return Suite(fakes.RULES, {**fakes.CHECKS, check.name: check})


def outcome(cert: Certificate, rule: str, provider: str | None) -> Outcome:
    return next(p.outcome for p in cert.rule(rule).providers if p.provider == provider)


def test_a_supplements_finding_fails_the_rule_in_the_providers_cell_it_names(
    fakes: ModuleType,
) -> None:
    def finds(ctx: CheckContext) -> None:
        ctx.fail("TF-91", "found by fuzzing", "a", "b", example="1. step", provider="spawn",
                 replay="subagent-tck fuzz --replay f.json --target t")

    cert = certify(fakes.FakeTarget(), RunConfig(), suite=with_supplement(fakes, finds))
    assert outcome(cert, "TF-91", "spawn") == Outcome.FAIL
    assert outcome(cert, "TF-91", "acp") == Outcome.NOT_APPLICABLE
    assert cert.verdict == Verdict.FAILED
    [failure] = cert.rule("TF-91").failures
    assert failure.check == "supplement" and failure.replay and failure.example == "1. step"


def test_a_finding_without_a_provider_fails_every_provider_cell_where_the_rule_applies(
    fakes: ModuleType,
) -> None:
    def finds(ctx: CheckContext) -> None:
        ctx.fail("DE-91", "found by fuzzing")

    providers = [fakes.ProviderInfo(name=n, capabilities=[]) for n in ("spawn", "fork")]
    target = fakes.FakeTarget(providers=providers)
    cert = certify(target, RunConfig(), suite=with_supplement(fakes, finds))
    assert {p.provider: p.outcome for p in cert.rule("DE-91").providers} == {
        "spawn": Outcome.FAIL, "fork": Outcome.FAIL}
    assert len(cert.rule("DE-91").failures) == 1  # filed twice, reported once


def test_a_finding_on_a_target_wide_rule_lands_in_its_target_cell(fakes: ModuleType) -> None:
    def finds(ctx: CheckContext) -> None:
        ctx.fail("FR-91", "found by fuzzing", provider="spawn")  # FR-91 is decided target-wide

    cert = certify(fakes.FakeTarget(), RunConfig(), suite=with_supplement(fakes, finds))
    assert [(p.provider, p.outcome) for p in cert.rule("FR-91").providers] == [
        (None, Outcome.FAIL)]


def test_what_a_supplement_did_not_find_decides_nothing(fakes: ModuleType) -> None:
    """Its passes never hide a failure of the fixed cases, never make a not-applicable rule
    pass, and its silence never leaves a rule not-run."""
    def quiet(ctx: CheckContext) -> None:
        ctx.expect("TF-91", True, "compared, no divergence")
        ctx.note = "nothing found"

    target = fakes.FakeTarget({("DE-91", "spawn"): "break"},
                              components=())  # ST-91: not applicable
    suite = with_supplement(fakes, quiet, rules=("TF-91", "DE-91", "ST-91", "FR-91"))
    cert = certify(target, RunConfig(), suite=suite)
    baseline = certify(fakes.FakeTarget({("DE-91", "spawn"): "break"}, components=()),
                       RunConfig())
    assert [(r.id, r.outcome, r.providers) for r in cert.rules] == [
        (r.id, r.outcome, r.providers) for r in baseline.rules]
    assert outcome(cert, "DE-91", "spawn") == Outcome.FAIL
    assert cert.rule("ST-91").outcome == Outcome.NOT_APPLICABLE
    [run] = [r for r in cert.checks if r.check == "supplement"]
    assert run.note == "nothing found" and run.provider is None


def test_a_supplement_that_breaks_leaves_its_rules_error_and_nothing_certified(
    fakes: ModuleType,
) -> None:
    def breaks(ctx: CheckContext) -> None:
        raise RuntimeError("the fuzzer lost the target")

    cert = certify(fakes.FakeTarget(), RunConfig(), suite=with_supplement(fakes, breaks))
    assert outcome(cert, "TF-91", "spawn") == Outcome.ERROR
    assert "the fuzzer lost the target" in cert.rule("TF-91").failures[0].message
    assert cert.verdict == Verdict.FAILED


def test_a_supplement_gets_the_time_it_asks_for_beyond_the_runs_timeout(
    fakes: ModuleType,
) -> None:
    finished = threading.Event()

    def slow(ctx: CheckContext) -> None:
        finished.wait(0.6)
        finished.set()

    suite = with_supplement(fakes, slow, timeout=5.0)
    cert = certify(fakes.FakeTarget(), RunConfig(timeout=0.2), suite=suite)
    assert finished.is_set()
    assert [r.status for r in cert.checks if r.check == "supplement"] == ["finished"]
    assert cert.certified


def test_a_supplement_overrunning_its_own_time_is_an_error_naming_it(fakes: ModuleType) -> None:
    def hangs(ctx: CheckContext) -> None:
        fakes.RELEASE.wait(30)

    suite = with_supplement(fakes, hangs, timeout=0.3)
    cert = certify(fakes.FakeTarget(), RunConfig(timeout=0.1), suite=suite)
    message = cert.rule("TF-91").failures[0].message
    assert "did not finish within 0.3 s (the time check supplement asks for)" in message
    assert outcome(cert, "TF-91", "spawn") == Outcome.ERROR


def test_a_sharded_supplement_runs_once_per_shard_and_files_a_finding_once(
    fakes: ModuleType,
) -> None:
    """Each shard is a check run of its own, told its part; what a later shard finds again
    (the same check, rule and provider) is not filed twice, what it finds anew is."""
    parts: list[int] = []

    def finds(ctx: CheckContext) -> None:
        parts.append(ctx.shard)
        ctx.fail("TF-91", f"found by shard {ctx.shard}", provider="spawn")
        if ctx.shard == 2:
            ctx.fail("DE-91", "found by the third shard alone")

    cert = certify(fakes.FakeTarget(), RunConfig(),
                   suite=with_supplement(fakes, finds, shards=3))
    assert parts == [0, 1, 2]
    runs = [r for r in cert.checks if r.check == "supplement"]
    assert len(runs) == 3
    assert [f.message for f in cert.rule("TF-91").failures] == ["found by shard 0"]
    assert [f.message for f in cert.rule("DE-91").failures] == ["found by the third shard alone"]
