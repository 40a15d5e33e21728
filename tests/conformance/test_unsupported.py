"""A target's UNSUPPORTED_OPERATION answer (docs/driver-api.md#unsupported-operations): for an
optional operation the check stops and its rules not failed are not applicable with the reason;
for a core operation it is an error of the check naming the operation; every report says so,
and a run where nothing was judged certifies nothing."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core.certificate import Certificate, RunStatus, Verdict
from subagent_tck.conformance.core.exitcode import ExitCode, for_certificate
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import StartRequest
from subagent_tck.conformance.core.unsupported import CONDITIONAL, OPTIONAL, optional
from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.runner import RunConfig, Suite, certify
from subagent_tck.conformance.report import report_junit, report_markdown, report_text
from subagent_tck.conformance.report.report_json import render as render_json
from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget
from subagent_tck.spec import CATALOGUE, ErrorCode, PresentationMode, TckError

#: A target's message, hostile as target text may be: every output must escape it.
HOSTILE = "no restrictions here \x1b[31m</details><script>x</script> | `tick`"


class _NoRestrictions(ReferenceDeployment):
    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, HOSTILE)

    def create_agent(self, **kwargs: Any) -> Any:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, HOSTILE)


class _NoRoot(ReferenceDeployment):
    def root(self) -> Any:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, "no root today")


def _target(deployment: type[ReferenceDeployment], name: str) -> ReferenceTarget:
    target = ReferenceTarget(name=name)
    target.deployment_class = deployment
    return target


def _certify(target: Any, rules: tuple[str, ...] = (), suite: Suite | None = None,
             ) -> Certificate:
    return certify(target, RunConfig(rules=rules, timeout=120, deadline=600), suite=suite)


def test_a_refused_live_restriction_makes_exactly_its_checks_rules_not_applicable() -> None:
    # rules only checks of live restrictions decide (TF-07 is decided per provider too, by
    # filters in presets, which this target can express: tool-filter-composed-shapes)
    cert = _certify(_target(_NoRestrictions, "no-restrictions"),
                    ("TF-02", "TF-09", "TF-10", "PE-01"))
    for rule in ("TF-02", "TF-09", "TF-10"):
        result = cert.rule(rule)
        assert result.outcome == Outcome.NOT_APPLICABLE, (rule, result)
        assert not result.failures
        reason = result.providers[0].reason
        assert "the target cannot express" in reason and HOSTILE in reason
        assert result.providers[0].inexpressible
    assert "install-restriction" in cert.rule("TF-10").providers[0].reason
    assert cert.rule("PE-01").outcome == Outcome.PASS  # other checks judge as before
    assert set(cert.inexpressible) == {"TF-02", "TF-09", "TF-10"}
    assert {r.status for r in cert.checks if set(r.rules) & {"TF-02", "TF-09", "TF-10"}} == {
        RunStatus.UNSUPPORTED}
    assert cert.verdict == Verdict.PASSED and for_certificate(cert) == ExitCode.CERTIFIED


def test_a_core_operation_answered_unsupported_is_an_error_naming_it() -> None:
    cert = _certify(_target(_NoRoot, "no-root"), ("TF-07", "PE-01"))
    for rule in ("TF-07", "PE-01"):
        result = cert.rule(rule)
        assert result.outcome == Outcome.ERROR, (rule, result)
        assert any("UNSUPPORTED_OPERATION for root" in f.message for f in result.failures)
    assert not cert.inexpressible
    assert cert.verdict == Verdict.FAILED and for_certificate(cert) == ExitCode.TARGET_BROKEN


def _suite(*checks: tuple[str, tuple[str, ...], Callable[[CheckContext], None]]) -> Suite:
    made = {name: Check(name, rules, function, per_provider=False)
            for name, rules, function in checks}
    return Suite(tuple(CATALOGUE), made)


def test_a_failure_found_before_the_refusal_stays_a_failure() -> None:
    def body(ctx: CheckContext) -> None:
        dep = ctx.deploy(tools=["alpha"])
        root = dep.root().agent
        ctx.expect("TF-01", False, "a failure seen first")
        ctx.expect("TF-02", True, "a pass seen first")
        dep.install_restriction(root, {"deny": ["alpha"]})
        ctx.expect("TF-03", True, "never reached")

    suite = _suite(("mixed", ("TF-01", "TF-02", "TF-03"), body))
    cert = _certify(_target(_NoRestrictions, "no-restrictions"), ("TF-01", "TF-02", "TF-03"),
                    suite)
    assert cert.rule("TF-01").outcome == Outcome.FAIL
    # a pass seen before the refusal is no verdict: the rest of its scenario did not run
    assert cert.rule("TF-02").outcome == Outcome.NOT_APPLICABLE
    assert cert.rule("TF-03").outcome == Outcome.NOT_APPLICABLE
    assert cert.verdict == Verdict.FAILED and for_certificate(cert) == ExitCode.FAILED


def test_a_property_that_meets_the_refusal_stops_at_its_first_case() -> None:
    cases: list[int] = []

    def body(ctx: CheckContext) -> None:
        def case(n: int) -> None:
            cases.append(n)
            dep = ctx.deploy(tools=["alpha"])
            dep.install_restriction(dep.root().agent, {"deny": ["alpha"]})
            ctx.expect("TF-09", True, "never reached")

        ctx.for_all(st.integers(0, 1000), case)

    suite = _suite(("property", ("TF-09",), body))
    cert = _certify(_target(_NoRestrictions, "no-restrictions"), ("TF-09",), suite)
    assert len(cases) == 1
    assert cert.rule("TF-09").outcome == Outcome.NOT_APPLICABLE
    assert cert.verdict == Verdict.NOT_RUN and for_certificate(cert) == ExitCode.FAILED


def test_an_expected_refusal_answered_unsupported_is_not_taken_for_a_wrong_code() -> None:
    def body(ctx: CheckContext) -> None:
        dep = ctx.deploy(tools=["alpha"])
        ctx.expect_error("TF-07", ErrorCode.INVALID_TOOL_FILTER,
                         lambda: dep.install_restriction(dep.root().agent, {}), "a no-op")

    suite = _suite(("refusal", ("TF-07",), body))
    cert = _certify(_target(_NoRestrictions, "no-restrictions"), ("TF-07",), suite)
    assert cert.rule("TF-07").outcome == Outcome.NOT_APPLICABLE
    assert not cert.rule("TF-07").failures


def test_a_run_where_every_rule_is_not_applicable_certifies_nothing_in_every_format() -> None:
    def body(ctx: CheckContext) -> None:
        dep = ctx.deploy(tools=["alpha"])
        dep.install_restriction(dep.root().agent, {"deny": ["alpha"]})

    rules = tuple(r.id for r in CATALOGUE)
    suite = _suite(("everything", rules, body))
    cert = _certify(_target(_NoRestrictions, "no-restrictions"), suite=suite)
    assert cert.verdict == Verdict.NOT_RUN
    assert all(v.verdict == Verdict.NOT_RUN for v in cert.verdicts)
    assert for_certificate(cert) == ExitCode.FAILED
    applicable = [r for r in cert.rules if r.outcome == Outcome.NOT_APPLICABLE
                  and any(p.inexpressible for p in r.providers)]
    assert len(cert.inexpressible) == len(applicable) > 0

    text = report_text.render(cert, width=400)
    assert "nothing certified" in text and "(exit 1)" in text
    assert f"{len(cert.inexpressible)} rule(s) not applicable: the target cannot express" in text
    assert "\x1b" not in text and "\\x1b[31m" in text

    markdown = report_markdown.render(cert)
    assert "Nothing certified" in markdown and "<script>" not in markdown
    assert f"{len(cert.inexpressible)} rule(s) not applicable" in markdown

    root = ET.fromstring(report_junit.render(cert))
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["inexpressible"] == str(len(cert.inexpressible))
    assert props["verdict"] == "NOT-RUN"
    skipped = [c for c in root.iter("testcase") if c.find("skipped") is not None]
    assert any("the target cannot express install-restriction" in
               (c.find("skipped").get("message") or "") for c in skipped)  # type: ignore[union-attr]
    assert not [c for c in root.iter("testcase") if c.find("failure") is not None
                and c.get("name") in cert.inexpressible]

    document = json.loads(render_json(cert))
    from subagent_tck.conformance.core.certificate import json_schema
    jsonschema.validate(document, json.loads(json_schema()))
    assert document["inexpressible"] == cert.inexpressible and document["verdict"] == "NOT-RUN"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(OPTIONAL)), st.dictionaries(st.text(max_size=8), st.integers()))
def test_an_optional_operation_is_optional_whatever_its_arguments(
        operation: str, arguments: dict[str, int]) -> None:
    assert optional(operation, arguments, "root") == OPTIONAL[operation]


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=12), st.text(min_size=1, max_size=12))
def test_a_start_is_core_from_the_root_and_optional_from_any_other_agent(
        root: str, other: str) -> None:
    def start(parent: str) -> str | None:
        return optional("start", {"request": StartRequest(parent=parent, provider="p",
                                                          prompt="go")}, root)

    assert start(root) is None
    assert (start(other) is None) == (other == root)


@pytest.mark.parametrize("mode", list(PresentationMode))
def test_a_deployment_or_mode_is_optional_exactly_when_it_is_not_native(
        mode: PresentationMode) -> None:
    for operation in ("deploy", "set-mode"):
        what = optional(operation, {"mode": mode}, "root")
        assert (what is None) == (mode is PresentationMode.NATIVE)


def test_every_other_operation_is_core() -> None:
    from subagent_tck.conformance.core.unsupported import OPERATIONS, _wire

    core = [op for op in map(_wire, OPERATIONS) if op not in OPTIONAL and op not in CONDITIONAL]
    assert {"root", "view", "observe", "tool-schemas", "prompt", "agents"} <= set(core)
    assert all(optional(op, {}, "root") is None for op in core)


def test_a_check_stopped_by_the_refusal_outranks_a_check_with_no_case_of_the_rule() -> None:
    def refused(ctx: CheckContext) -> None:
        dep = ctx.deploy(tools=["alpha"])
        dep.install_restriction(dep.root().agent, {"deny": ["alpha"]})

    def no_case(ctx: CheckContext) -> None:
        ctx.deploy(tools=["alpha"]).root()

    suite = _suite(("refused", ("TF-09",), refused), ("no-case", ("TF-09",), no_case))
    cert = _certify(_target(_NoRestrictions, "no-restrictions"), ("TF-09",), suite)
    assert cert.rule("TF-09").outcome == Outcome.NOT_APPLICABLE
    assert cert.inexpressible == ["TF-09"]


def test_the_answer_travels_over_the_driver_api_and_is_judged_the_same() -> None:
    from subagent_tck.conformance.transports.http_server import create_app
    from subagent_tck.conformance.transports.http_target import HttpTarget
    from subagent_tck.conformance.transports.httpd import ServerThread

    served = _target(_NoRestrictions, "no-restrictions over http")
    with ServerThread(create_app(served, model_timeout=10.0)) as server:
        target = HttpTarget(server.url, timeout=10.0)
        try:
            cert = _certify(target, ("TF-09", "TF-10"))
        finally:
            target.close()
    for rule in ("TF-09", "TF-10"):
        reason = cert.rule(rule).providers[0].reason
        assert cert.rule(rule).outcome == Outcome.NOT_APPLICABLE and HOSTILE in reason


def test_the_fuzz_campaign_draws_around_an_operation_the_target_cannot_express() -> None:
    from subagent_tck.fuzz.campaign import run_campaign

    result = run_campaign(_target(_NoRestrictions, "no-restrictions"), budget_seconds=60,
                          max_examples=30, seed=3, profile="ci", database_dir=None)
    assert result.finding is None and result.error is None, result.report()
    assert result.examples >= 1 and result.steps > 0


def test_a_capability_whose_own_rules_are_all_not_applicable_certifies_nothing_of_it() -> None:
    tool_filter = tuple(r.id for r in CATALOGUE if r.capability is not None
                        and r.capability.value == "toolFilter")

    def refused(ctx: CheckContext) -> None:
        dep = ctx.deploy(tools=["alpha"])
        dep.install_restriction(dep.root().agent, {"deny": ["alpha"]})

    def fine(ctx: CheckContext) -> None:
        for rule in ctx.check.rules:
            ctx.expect(rule, True, "holds")

    others = tuple(r.id for r in CATALOGUE if r.id not in tool_filter)
    suite = _suite(("refused", tool_filter, refused), ("fine", others, fine))
    cert = _certify(_target(_NoRestrictions, "no-restrictions"), suite=suite)
    rows = {(v.provider, v.capability.value if v.capability else None): v.verdict
            for v in cert.verdicts}
    assert {v for (_, c), v in rows.items() if c == "toolFilter"} == {Verdict.NOT_RUN}
    assert {v for (_, c), v in rows.items() if c != "toolFilter"} == {Verdict.CERTIFIED}
    text = report_text.render(cert, width=400)
    providers = ", ".join(f"{p} toolFilter" for (p, c) in rows if c == "toolFilter")
    assert (f"verdict: CERTIFIED (exit 0); nothing certified (every rule not applicable) for "
            f"{providers}") in text
    assert "Nothing certified** (every rule not applicable) for" in report_markdown.render(cert)
