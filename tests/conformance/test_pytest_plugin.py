"""The pytest plugin: inert by default; with a target, one item per rule id (fake suite)."""

from __future__ import annotations

from types import ModuleType

import pytest

pytest_plugins = ["pytester"]

FAKE = "python:subagent_tck_test_fakes:"


def test_the_plugin_is_inert_without_a_target(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_one():\n    pass\n")
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=1)
    assert "subagent-tck" not in result.stdout.str()


def test_one_item_per_rule_reports_its_outcome(
    pytester: pytest.Pytester, fakes: ModuleType,
) -> None:
    result = pytester.runpytest(f"--subagent-tck-target={FAKE}broken_filter", "-v", "-rsx")
    # TF-92 fails; EN-92 (other edition) is skipped; the rest passes.
    result.assert_outcomes(passed=len(fakes.RULES) - 2, failed=1, skipped=1)
    out = result.stdout.str()
    assert "subagent-tck: certifying python:subagent_tck_test_fakes:broken_filter" in out
    result.stdout.fnmatch_lines([
        "*subagent-tck::TF-92 FAILED*",
        "*?spawn? TF-92 broken*",
        "*replay: subagent-tck certify --target python:subagent_tck_test_fakes:broken_filter"
        " --rule TF-92 --seed 0*",
        "*EN-92 not applicable: spawn, acp: edition request-controls only*",
    ])


def test_a_rule_the_target_cannot_express_is_skipped_with_the_reason_escaped(
    pytester: pytest.Pytester, fakes: ModuleType,
) -> None:
    result = pytester.runpytest(f"--subagent-tck-target={FAKE}inexpressible_filter", "-v",
                                "-rs")
    # the check stops at TF-92: TF-91 (passed before: no verdict), TF-92 and TF-93 are not
    # applicable; EN-92 belongs to the other edition
    result.assert_outcomes(passed=len(fakes.RULES) - 4, skipped=4)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(["*TF-93 not applicable: spawn: the target cannot express "
                                 "resume (cold resume of a stored session): no cold resume*"])
    assert "\x1b" not in out and "\\x1b]8;;http://x\\x07link" in out


def test_k_selects_rules_and_the_runner_runs_only_those(
    pytester: pytest.Pytester, fakes: ModuleType, monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, ...]] = []
    real = fakes.fake_check

    def counting(ctx: object) -> None:
        calls.append(ctx.check.rules)  # type: ignore[attr-defined]
        real(ctx)

    for name, check in fakes.CHECKS.items():
        monkeypatch.setitem(fakes.CHECKS, name, type(check)(
            check.name, check.rules, counting, check.per_provider, check.edition))
    result = pytester.runpytest(f"--subagent-tck-target={FAKE}broken_filter", "-k", "TF-92")
    result.assert_outcomes(failed=1, deselected=len(fakes.RULES) - 1)
    assert calls == [("TF-91", "TF-92", "TF-93")]  # one check, for spawn only


def test_markers_select_by_family_capability_and_level(
    pytester: pytest.Pytester, fakes: ModuleType,
) -> None:
    target = f"--subagent-tck-target={FAKE}healthy"
    pytester.runpytest(target, "-m", "tf").assert_outcomes(passed=3, deselected=8)
    pytester.runpytest(target, "-m", "depthLimit or should").assert_outcomes(passed=2,
                                                                          deselected=9)
    strict = pytester.runpytest(target, "--strict-markers", "-m", "subagent_tck and not ca")
    strict.assert_outcomes(passed=9, skipped=1, deselected=1)


def test_a_failing_should_rule_is_an_expected_failure_not_a_failure(
    pytester: pytest.Pytester, fakes: ModuleType, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fakes, "healthy",
                        lambda: fakes.FakeTarget({("TF-93", "spawn"): "break"}))
    result = pytester.runpytest(f"--subagent-tck-target={FAKE}healthy", "-k", "TF-93", "-rx")
    result.assert_outcomes(xfailed=1, deselected=len(fakes.RULES) - 1)
    result.stdout.fnmatch_lines(["*SHOULD rule, reported but never decisive*"])


def test_a_baselined_failure_is_an_expected_failure(
    pytester: pytest.Pytester, fakes: ModuleType,
) -> None:
    baseline = pytester.makefile(".toml", baseline='[[expected-fail]]\nrule = "TF-92"\n'
                                                   'reason = "known"\nscope = "rule"\n')
    result = pytester.runpytest(f"--subagent-tck-target={FAKE}broken_filter",
                                f"--subagent-tck-baseline={baseline}", "-k", "TF-92")
    result.assert_outcomes(xfailed=1, deselected=len(fakes.RULES) - 1)


def test_a_bad_target_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--subagent-tck-target=nonsense")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--subagent-tck-target: unknown target 'nonsense'*"])


def test_an_edition_the_target_lacks_is_a_usage_error(
    pytester: pytest.Pytester, fakes: ModuleType,
) -> None:
    result = pytester.runpytest(f"--subagent-tck-target={FAKE}healthy",
                                "--subagent-tck-edition=request-controls")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*use --subagent-tck-edition with one of preset-composition*"])


def test_a_seed_reaches_every_check(pytester: pytest.Pytester, fakes: ModuleType,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    seeds: set[int] = set()
    real = fakes.fake_check

    def seeing(ctx: object) -> None:
        seeds.add(ctx.seed)  # type: ignore[attr-defined]
        real(ctx)

    for name, check in fakes.CHECKS.items():
        monkeypatch.setitem(fakes.CHECKS, name, type(check)(
            check.name, check.rules, seeing, check.per_provider, check.edition))
    pytester.runpytest(f"--subagent-tck-target={FAKE}healthy", "--subagent-tck-seed=99")
    assert seeds == {99}
