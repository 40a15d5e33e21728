"""The runner's planning, safety nets and verdicts, over the fake suite of fakes.py."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core.certificate import Certificate, Verdict
from subagent_tck.conformance.core.exitcode import ExitCode, for_certificate
from subagent_tck.conformance.core.outcome import BAD, Outcome
from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.runner import (
    CheckFinished,
    CheckStarted,
    RunConfig,
    RunFinished,
    RunStarted,
    Suite,
    certify,
)
from subagent_tck.spec import Capability, Edition, ErrorCode, Level, TckError


def run(fakes: ModuleType, behaviour: dict[tuple[str, str | None], str] | None = None,
        **kwargs: Any) -> Certificate:
    target_kwargs = {k: kwargs.pop(k) for k in ("providers", "editions", "components")
                     if k in kwargs}
    target = fakes.FakeTarget(behaviour, **target_kwargs)
    return certify(target, RunConfig(target_spec="python:fake:target", **kwargs))


def verdict(cert: Certificate, provider: str, capability: Capability | None) -> Verdict:
    return next(v.verdict for v in cert.verdicts
                if v.provider == provider and v.capability == capability)


def outcome(cert: Certificate, rule: str, provider: str | None) -> Outcome:
    return next(p.outcome for p in cert.rule(rule).providers if p.provider == provider)


def test_a_healthy_target_certifies_every_advertised_capability(fakes: ModuleType) -> None:
    cert = run(fakes)
    assert cert.certified and for_certificate(cert) == ExitCode.CERTIFIED
    assert {(v.provider, v.capability) for v in cert.verdicts} == {
        ("spawn", None), ("spawn", Capability.DEPTH_LIMIT), ("spawn", Capability.PERSONA),
        ("spawn", Capability.TOOL_FILTER), ("spawn", Capability.OUTPUT_SCHEMA), ("acp", None),
    }
    assert not cert.failing()


def test_one_broken_rule_fails_only_its_capability_for_that_provider(fakes: ModuleType) -> None:
    cert = run(fakes, {("TF-92", "spawn"): "break"})
    assert verdict(cert, "spawn", Capability.TOOL_FILTER) == Verdict.FAILED
    assert verdict(cert, "spawn", Capability.PERSONA) == Verdict.CERTIFIED
    assert verdict(cert, "spawn", None) == Verdict.CERTIFIED
    assert not cert.certified and for_certificate(cert) == ExitCode.FAILED
    result = cert.rule("TF-92")
    assert result.outcome == Outcome.FAIL
    assert [(f.provider, f.expected, f.observed, f.example) for f in result.failures] == [
        ("spawn", "a", "b", "state-1")]
    assert result.replay == ("subagent-tck certify --target python:fake:target --rule TF-92 "
                             "--seed 0")
    assert [r.id for r in cert.failing()] == ["TF-92"]


def test_a_capability_not_advertised_makes_its_rules_not_applicable(fakes: ModuleType) -> None:
    cert = run(fakes)
    acp = next(p for p in cert.rule("PE-91").providers if p.provider == "acp")
    assert acp.outcome == Outcome.NOT_APPLICABLE
    assert "does not advertise persona" in acp.reason
    assert cert.rule("PE-91").outcome == Outcome.PASS  # worst over providers, n/a ignored
    assert [c.provider for c in cert.checks if c.check == "fake-persona"] == ["spawn"]


def test_rules_of_another_edition_are_not_applicable_and_their_checks_do_not_run(
    fakes: ModuleType,
) -> None:
    cert = run(fakes)
    assert cert.edition == Edition.PRESET_COMPOSITION
    assert cert.rule("EN-92").outcome == Outcome.NOT_APPLICABLE
    assert "fake-request" not in {c.check for c in cert.checks}
    other = run(fakes, editions=list(Edition), edition=Edition.REQUEST_CONTROLS)
    assert other.rule("EN-92").outcome == Outcome.PASS
    assert other.rule("EN-91").outcome == Outcome.NOT_APPLICABLE
    assert other.certified


def test_component_rules_apply_only_when_the_target_ships_the_component(
    fakes: ModuleType,
) -> None:
    cert = run(fakes, {("ST-91", None): "break"}, components=[])
    assert cert.rule("ST-91").outcome == Outcome.NOT_APPLICABLE
    assert cert.certified
    assert run(fakes, {("ST-91", None): "break"}).rule("ST-91").outcome == Outcome.FAIL


def test_a_crash_is_an_error_for_every_rule_of_the_check_never_a_pass(
    fakes: ModuleType,
) -> None:
    cert = run(fakes, {("TF-92", "spawn"): "crash"})
    for rule in ("TF-91", "TF-92", "TF-93"):
        assert outcome(cert, rule, "spawn") == Outcome.ERROR
        assert all(f.error and f.traceback for f in cert.rule(rule).failures)
    assert "RuntimeError: target exploded on TF-92" in cert.rule("TF-91").failures[0].message
    assert "stopped early" in cert.rule("TF-92").failures[0].message
    assert [c.status for c in cert.checks if c.check == "fake-filter"] == ["crashed"]
    assert for_certificate(cert) == ExitCode.TARGET_BROKEN  # every failure is an error


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot even be printed")


def test_a_check_whose_crash_cannot_be_recorded_is_still_an_error(fakes: ModuleType) -> None:
    def nasty(ctx: CheckContext) -> None:
        ctx.expect("CA-91", True, "looked fine so far")
        raise _Unprintable()

    suite = Suite(fakes.RULES, {"nasty": Check("nasty", ("CA-91",), nasty)})
    cert = certify(fakes.FakeTarget(), RunConfig(), suite=suite)
    assert cert.rule("CA-91").outcome == Outcome.ERROR
    assert "could not report its result" in cert.rule("CA-91").failures[0].message
    assert {c.status for c in cert.checks} == {"crashed"}


def test_an_unexpected_refusal_fails_the_first_rule_and_leaves_the_rest_undecided(
    fakes: ModuleType,
) -> None:
    cert = run(fakes, {("TF-91", "spawn"): "refuse"})
    assert outcome(cert, "TF-91", "spawn") == Outcome.FAIL
    assert "INVALID_REQUEST" in cert.rule("TF-91").failures[0].message
    assert outcome(cert, "TF-92", "spawn") == Outcome.ERROR
    assert for_certificate(cert) == ExitCode.FAILED


def test_a_target_breaking_the_protocol_everywhere_exits_3(fakes: ModuleType) -> None:
    cert = certify(fakes.crashing(), RunConfig())
    assert {r.outcome for r in cert.rules} <= {Outcome.ERROR, Outcome.NOT_APPLICABLE}
    assert cert.target_broken and for_certificate(cert) == ExitCode.TARGET_BROKEN


def test_a_hanging_check_times_out_as_an_error_naming_check_and_timeout(
    fakes: ModuleType,
) -> None:
    cert = run(fakes, {("PE-91", "spawn"): "hang"}, timeout=0.2)
    failure = cert.rule("PE-91").failures[0]
    assert failure.error and "fake-persona" in failure.message and "0.2 s" in failure.message
    assert "--timeout" in failure.message
    assert [c.status for c in cert.checks if c.check == "fake-persona"] == ["timeout"]
    assert cert.rule("DE-91").outcome == Outcome.PASS  # the run went on, on a fresh worker


def test_the_deadline_turns_the_remaining_checks_into_errors(fakes: ModuleType) -> None:
    cert = run(fakes, {("TF-91", "spawn"): "hang"}, deadline=0.3)
    first = cert.rule("TF-91").failures[0]
    assert first.message == "the run's deadline of 0.3 s (--deadline) expired during check " \
        "fake-filter"
    assert "target" not in first.message  # the kit's own limit, said in its own words
    statuses = [c.status for c in cert.checks]
    assert set(statuses) == {"deadline"}
    later = cert.rule("CA-91").failures[0]
    assert later.error and later.message.startswith("the run's deadline of 0.3 s (--deadline) "
                                                    "expired before check fake-gating")
    assert cert.stopped_early == "the run's deadline of 0.3 s (--deadline) expired after 0 of " \
        f"{len(cert.checks)} check runs"
    assert cert.duration < 5


def test_a_script_the_target_never_consumed_voids_the_check(fakes: ModuleType) -> None:
    cert = run(fakes, {("CA-91", "acp"): "unconsumed"})
    assert outcome(cert, "CA-91", "acp") == Outcome.ERROR
    assert "'marker-never-asked'" in cert.rule("CA-91").failures[0].message
    assert outcome(cert, "CA-91", "spawn") == Outcome.PASS
    assert [c.status for c in cert.checks if c.check == "fake-gating"] == [
        "finished", "unconsumed-script"]


def test_a_script_marked_not_required_may_stay_unconsumed(fakes: ModuleType) -> None:
    cert = run(fakes, {("CA-91", "acp"): "trap"})
    assert outcome(cert, "CA-91", "acp") == Outcome.PASS
    assert cert.certified


def test_a_rule_the_check_never_verified_is_not_run_and_blocks(fakes: ModuleType) -> None:
    cert = run(fakes, {("TF-91", "spawn"): "silent"})
    assert cert.rule("TF-91").outcome == Outcome.NOT_RUN
    assert "never verified" in cert.rule("TF-91").providers[0].reason
    tool_filter = next(v for v in cert.verdicts if v.capability == Capability.TOOL_FILTER)
    assert tool_filter.verdict == Verdict.FAILED and tool_filter.blocking == ["TF-91 not-run"]


def test_a_rule_no_check_decides_is_not_run_and_never_certifies(fakes: ModuleType) -> None:
    rules = (*fakes.RULES, fakes._rule("CA-92"))
    cert = certify(fakes.FakeTarget(), RunConfig(), suite=Suite(rules, fakes.CHECKS))
    assert cert.rule("CA-92").outcome == Outcome.NOT_RUN
    assert not cert.certified


def test_a_check_skip_is_not_applicable_and_does_not_block(fakes: ModuleType) -> None:
    cert = run(fakes, {("CA-91", "acp"): "skip"})
    assert outcome(cert, "CA-91", "acp") == Outcome.NOT_APPLICABLE
    assert "nothing to refuse" in cert.rule("CA-91").providers[1].reason
    assert cert.certified


def test_a_should_rule_is_reported_but_never_decisive(fakes: ModuleType) -> None:
    cert = run(fakes, {("TF-93", "spawn"): "break"})
    assert cert.rule("TF-93").outcome == Outcome.FAIL
    assert cert.rule("TF-93").level == Level.SHOULD
    assert cert.certified and for_certificate(cert) == ExitCode.CERTIFIED


def test_a_core_rule_failure_fails_every_verdict_of_that_provider_only(
    fakes: ModuleType,
) -> None:
    cert = run(fakes, {("DE-91", "spawn"): "break"})
    assert {v.verdict for v in cert.verdicts if v.provider == "spawn"} == {Verdict.FAILED}
    assert verdict(cert, "acp", None) == Verdict.CERTIFIED


def test_a_target_wide_rule_binds_every_provider(fakes: ModuleType) -> None:
    cert = run(fakes, {("FR-91", None): "break"})
    assert [p.provider for p in cert.rule("FR-91").providers] == [None]
    assert {v.verdict for v in cert.verdicts} == {Verdict.FAILED}
    assert all("FR-91 fail" in v.blocking for v in cert.verdicts)


def test_the_rule_outcome_is_the_worst_over_providers(fakes: ModuleType) -> None:
    cert = run(fakes, {("CA-91", "acp"): "break"})
    assert outcome(cert, "CA-91", "spawn") == Outcome.PASS
    assert cert.rule("CA-91").outcome == Outcome.FAIL
    assert verdict(cert, "spawn", None) == Verdict.CERTIFIED
    assert verdict(cert, "acp", None) == Verdict.FAILED


def test_selecting_rules_runs_only_their_checks_and_never_certifies(fakes: ModuleType) -> None:
    events: list[Any] = []
    target = fakes.FakeTarget()
    cert = certify(target, RunConfig(rules=("tf-92",)), handlers=[events.append])
    assert cert.selected_rules == ["TF-92"]
    assert {c.check for c in cert.checks} == {"fake-filter"}
    assert cert.rule("TF-92").outcome == Outcome.PASS
    assert cert.rule("TF-91").outcome == Outcome.NOT_RUN
    assert cert.rule("TF-91").providers[0].reason == "deselected (--rule)"
    assert not cert.certified and not cert.failing()
    finished = [e for e in events if isinstance(e, CheckFinished)]
    assert [dict(e.outcomes) for e in finished] == [{"TF-92": Outcome.PASS}]


def test_a_deselected_rules_failures_are_not_reported(fakes: ModuleType) -> None:
    cert = certify(fakes.FakeTarget({("TF-91", "spawn"): "break"}), RunConfig(rules=("TF-92",)))
    assert cert.rule("TF-91").outcome == Outcome.NOT_RUN and not cert.rule("TF-91").failures


def test_an_unknown_selected_rule_is_a_usage_error(fakes: ModuleType) -> None:
    with pytest.raises(TckError) as caught:
        certify(fakes.FakeTarget(), RunConfig(rules=("TF-9x",)))
    assert caught.value.code == ErrorCode.USAGE and "subagent-tck rules" in caught.value.message


def test_an_edition_the_target_lacks_is_a_usage_error_naming_the_supported_ones(
    fakes: ModuleType,
) -> None:
    with pytest.raises(TckError) as caught:
        certify(fakes.FakeTarget(), RunConfig(edition=Edition.REQUEST_CONTROLS))
    assert caught.value.code == ErrorCode.USAGE
    assert "use --edition with one of preset-composition" in caught.value.message


def test_without_the_default_edition_the_targets_first_one_is_used(fakes: ModuleType) -> None:
    cert = certify(fakes.request_only(), RunConfig())
    assert cert.edition == Edition.REQUEST_CONTROLS
    assert "--edition request-controls" in (
        run(fakes, {("EN-92", "spawn"): "break"}, editions=[Edition.REQUEST_CONTROLS])
        .rule("EN-92").replay or "")


def test_a_target_whose_info_fails_is_unreachable(fakes: ModuleType) -> None:
    with pytest.raises(TckError) as caught:
        certify(fakes.unreachable(), RunConfig())
    assert caught.value.code == ErrorCode.TARGET_UNREACHABLE
    assert "connection refused" in caught.value.message


@pytest.mark.parametrize("field", ["timeout", "deadline"])
def test_a_non_positive_time_budget_is_a_usage_error(fakes: ModuleType, field: str) -> None:
    with pytest.raises(TckError, match=f"--{field} must be a positive"):
        certify(fakes.FakeTarget(), RunConfig(**{field: 0}))


def test_an_unknown_profile_is_a_usage_error(fakes: ModuleType) -> None:
    with pytest.raises(TckError, match="unknown profile 'quick'"):
        certify(fakes.FakeTarget(), RunConfig(profile="quick"))


def test_the_runner_emits_events_in_order_to_every_handler(fakes: ModuleType) -> None:
    seen: list[Any] = []
    cert = certify(fakes.FakeTarget(), RunConfig(), handlers=[seen.append, lambda e: None])
    assert isinstance(seen[0], RunStarted) and isinstance(seen[-1], RunFinished)
    assert seen[-1].certificate is cert
    middle = seen[1:-1]
    assert len(middle) == 2 * len(seen[0].plan) == 2 * len(cert.checks)
    assert all(isinstance(a, CheckStarted) and isinstance(b, CheckFinished)
               and a.planned is b.planned for a, b in zip(middle[::2], middle[1::2], strict=True))


@pytest.mark.parametrize(("profile", "examples"), [("ci", 10), ("thorough", 200)])
def test_each_check_gets_the_runs_seed_and_the_profiles_examples(
    fakes: ModuleType, profile: str, examples: int,
) -> None:
    seen: list[tuple[int, int]] = []

    def probe(ctx: CheckContext) -> None:
        seen.append((ctx.seed, ctx.max_examples))
        ctx.expect("CA-91", True, "seen")

    suite = Suite(fakes.RULES, {"probe": Check("probe", ("CA-91",), probe)})
    certify(fakes.FakeTarget(), RunConfig(seed=1234, profile=profile), suite=suite)
    assert seen == [(1234, examples), (1234, examples)]


def test_every_deployment_is_closed_after_its_check(fakes: ModuleType) -> None:
    target = fakes.FakeTarget({("TF-91", "spawn"): "crash"})
    certify(target, RunConfig())
    assert target.open_deployments == 0


BEHAVIOURS = st.sampled_from(["ok", "break", "skip", "silent"])


# The fixture installs the fake suite once; every example shares that (stateless) setting.
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_capability_is_certified_iff_every_relevant_must_rule_held(
    data: st.DataObject, fakes: ModuleType,
) -> None:
    keys = [(r.id, p) for r in fakes.RULES for p in ("spawn", "acp", None)]
    behaviour = data.draw(st.dictionaries(st.sampled_from(keys), BEHAVIOURS, max_size=6))
    cert = certify(fakes.FakeTarget(behaviour), RunConfig())
    for v in cert.verdicts:
        relevant = [r for r in fakes.RULES if r.level == Level.MUST
                    and r.capability in (None, v.capability)
                    and r.edition in (None, Edition.PRESET_COMPOSITION)]
        bad = [r.id for r in relevant for p in (v.provider, None)
               if behaviour.get((r.id, p)) in ("break", "silent")
               and _decided_for(r, p, v.provider)]
        assert (v.verdict == Verdict.CERTIFIED) == (not bad), (v, bad)
    assert all(p.outcome not in BAD or r.failures or p.outcome == Outcome.NOT_RUN
               for r in cert.rules for p in r.providers)


def _decided_for(rule: Any, key: str | None, provider: str) -> bool:
    """Whether behaviour under ``key`` reaches ``provider``'s verdict in the fake suite."""
    target_wide = rule.id in ("ST-91", "FR-91")
    if target_wide:
        return key is None
    if key != provider:
        return False
    return rule.capability is None or provider == "spawn"
