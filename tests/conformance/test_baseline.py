"""Baselines: known failures become expected-fail; a listed pass fails the run; every mistake
in the file is a usage error naming the entry and the fix."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from subagent_tck.conformance.core.baseline import load_baseline, parse_baseline
from subagent_tck.conformance.core.exitcode import ExitCode, for_certificate
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.spec import ErrorCode, TckError


def usage(text: str, rules: dict[str, object] | None = None) -> str:
    with pytest.raises(TckError) as caught:
        parse_baseline(text, "b.toml", rules)
    assert caught.value.code == ErrorCode.USAGE
    return caught.value.message


def test_entries_are_read_with_their_position_and_line() -> None:
    baseline = parse_baseline(
        '# known\n[[expected-fail]]\nrule = "tf-07"\nreason = "accepts null"\n\n'
        '[[expected-fail]]\nrule = "PE-03"\nreason = "truthy check"\nprovider = "spawn"\n')
    first, second = baseline.entries
    assert (first.rule, first.reason, first.provider, first.number, first.line) == (
        "TF-07", "accepts null", None, 1, 2)
    assert (second.rule, second.provider, second.line) == ("PE-03", "spawn", 6)
    assert baseline.match("PE-03", "spawn") is second
    assert baseline.match("PE-03", "fork") is None
    assert baseline.match("TF-07", None) is first


def test_an_empty_file_is_an_empty_baseline() -> None:
    assert parse_baseline("").entries == ()


def test_malformed_toml_is_a_usage_error_showing_the_shape() -> None:
    message = usage("[[expected-fail]\nrule = ")
    assert "not valid TOML" in message and "line 1" in message
    assert '[[expected-fail]]\nrule = "TF-07"' in message


def test_a_missing_reason_names_the_entry_line_and_fix() -> None:
    message = usage('[[expected-fail]]\nrule = "TF-07"\nreason = "x"\n'
                    '[[expected-fail]]\nrule = "TF-08"\n')
    assert "entry 2 (line 4)" in message and "missing `reason`" in message
    assert "reason = " in message


def test_a_missing_rule_is_a_usage_error() -> None:
    assert "missing `rule`" in usage('[[expected-fail]]\nreason = "x"\n')


def test_an_unknown_rule_id_is_a_usage_error() -> None:
    message = usage('[[expected-fail]]\nrule = "TF-77"\nreason = "x"\n', {"TF-07": object()})
    assert "entry 1 (line 1)" in message and "unknown rule id 'TF-77'" in message


@pytest.mark.parametrize(("text", "needle"), [
    ('[[expected-fail]]\nrule = "TF-07"\nreason = "x"\nwhy = "y"\n', "unknown key(s) why"),
    ('title = "mine"\n', "unexpected top-level key(s) title"),
    ('expected-fail = "TF-07"\n', "must be an array of tables"),
    ('expected-fail = ["TF-07"]\n', "must be a table"),
    ('[[expected-fail]]\nrule = "TF-07"\nreason = "x"\nprovider = 3\n', "`provider` must be"),
    ('[[expected-fail]]\nrule = "TF-07"\nreason = "x"\n'
     '[[expected-fail]]\nrule = "TF-07"\nreason = "y"\n', "duplicates entry 1"),
])
def test_every_other_mistake_is_a_usage_error(text: str, needle: str) -> None:
    assert needle in usage(text)


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(TckError, match="not found: check the --baseline path"):
        load_baseline(tmp_path / "nope.toml")


def test_a_listed_failure_is_expected_and_certifies(fakes: ModuleType, tmp_path: Path) -> None:
    file = tmp_path / "baseline.toml"
    file.write_text('[[expected-fail]]\nrule = "TF-92"\nreason = "known since 1.2"\n')
    target = fakes.FakeTarget({("TF-92", "spawn"): "break"})
    cert = certify(target, RunConfig(baseline=load_baseline(file)))
    result = cert.rule("TF-92")
    assert result.outcome == Outcome.EXPECTED_FAIL
    assert result.providers[0].reason == "known since 1.2"
    assert result.failures and result.replay is None  # the evidence stays in the certificate
    assert cert.certified and for_certificate(cert) == ExitCode.CERTIFIED
    assert cert.baseline == str(file)


def test_a_listed_rule_that_passes_fails_the_run(fakes: ModuleType) -> None:
    baseline = parse_baseline('[[expected-fail]]\nrule = "TF-93"\nreason = "flaky"\n')
    cert = certify(fakes.FakeTarget(), RunConfig(baseline=baseline))
    result = cert.rule("TF-93")  # a SHOULD rule: an unexpected pass still fails the run
    assert result.outcome == Outcome.UNEXPECTED_PASS
    assert "remove the entry" in result.failures[0].message
    assert not cert.certified and for_certificate(cert) == ExitCode.FAILED


def test_a_provider_narrowed_entry_covers_only_that_provider(fakes: ModuleType) -> None:
    baseline = parse_baseline(
        '[[expected-fail]]\nrule = "CA-91"\nreason = "acp is old"\nprovider = "acp"\n')
    cert = certify(fakes.FakeTarget({("CA-91", "*"): "break"}), RunConfig(baseline=baseline))
    by_provider = {p.provider: p.outcome for p in cert.rule("CA-91").providers}
    assert by_provider == {"spawn": Outcome.FAIL, "acp": Outcome.EXPECTED_FAIL}
    assert not cert.certified


def test_an_entry_for_an_unknown_provider_is_a_usage_error(fakes: ModuleType) -> None:
    baseline = parse_baseline(
        '[[expected-fail]]\nrule = "CA-91"\nreason = "x"\nprovider = "spwan"\n')
    with pytest.raises(TckError, match="no provider 'spwan': use one of spawn, acp"):
        certify(fakes.FakeTarget(), RunConfig(baseline=baseline))


def test_an_entry_without_provider_covers_the_rule_while_it_fails_anywhere(
    fakes: ModuleType,
) -> None:
    baseline = parse_baseline('[[expected-fail]]\nrule = "CA-91"\nreason = "acp is old"\n')
    cert = certify(fakes.FakeTarget({("CA-91", "acp"): "break"}), RunConfig(baseline=baseline))
    by_provider = {p.provider: p.outcome for p in cert.rule("CA-91").providers}
    assert by_provider == {"spawn": Outcome.PASS, "acp": Outcome.EXPECTED_FAIL}
    assert cert.certified and for_certificate(cert) == ExitCode.CERTIFIED
