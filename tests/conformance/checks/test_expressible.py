"""Parts of a check a target cannot set up (``CheckContext.expressible``,
docs/certify.md#partitions): a rule is not applicable only when no part of its check can be
built on the target; otherwise the parts it can express decide it, and the certificate names
the partitions it could not."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from examples.providers.schemas_only_filter import SchemasOnlyHost
from subagent_tck.conformance.core.certificate import Certificate
from subagent_tck.conformance.core.drawn import summary
from subagent_tck.conformance.core.gateway import text
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import DeploymentConfig, ToolSpec
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.check_run import run_check
from subagent_tck.conformance.engine.partitions import Partition
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.report.report_markdown import render as render_markdown
from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget
from subagent_tck.spec import RUN_CODE, ErrorCode, PresentationMode, TckError

NATIVE_ONLY = "every tool is a native tool schema here \x1b[31m"  # hostile: escaped in reports


class _NativeOnly(ReferenceDeployment):
    """A runtime like Claude Code: no run_code, so only the native presentation mode, and no
    scope-local tools."""

    def set_mode(self, agent: str, mode: PresentationMode) -> None:
        if mode is not PresentationMode.NATIVE:
            raise TckError(ErrorCode.UNSUPPORTED_OPERATION, NATIVE_ONLY)
        super().set_mode(agent, mode)

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        if agent is not None:
            raise TckError(ErrorCode.UNSUPPORTED_OPERATION, "no scope-local tools here")
        super().register_tool(tool, agent)


class _EmptyAllowIgnored(_NativeOnly):
    """The bug a native-only runtime can have: ``allow: []`` read as no allow list."""

    def install_restriction(self, agent: str, restriction: Any) -> str:
        if isinstance(restriction, dict) and restriction.get("allow") == []:
            restriction = {k: v for k, v in restriction.items() if k != "allow"} or {"deny": []}
        return super().install_restriction(agent, restriction)


class _NoRestrictions(_NativeOnly):
    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, "no live restrictions here")


class _Target(ReferenceTarget):
    def __init__(self, deployment: type[ReferenceDeployment], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.deployment_class = deployment

    def deploy(self, config: DeploymentConfig, gateway: Any) -> ReferenceDeployment:
        if config.mode not in (None, PresentationMode.NATIVE):
            raise TckError(ErrorCode.UNSUPPORTED_OPERATION, NATIVE_ONLY)
        return super().deploy(config, gateway)


def _tf03(deployment: type[ReferenceDeployment], seed: int, rule: str = "TF-03",
          **kwargs: Any) -> Certificate:
    return certify(_Target(deployment, **kwargs), RunConfig(target_spec="native-only",
                                                            seed=seed, rules=(rule,)))


@pytest.mark.parametrize("seed", [0, 5])
def test_a_native_only_target_passes_tf03_on_what_it_can_express_and_names_the_rest(
        seed: int) -> None:
    cert = _tf03(_NativeOnly, seed)
    rule = cert.rule("TF-03")
    assert rule.outcome is Outcome.PASS, rule
    runs = {c.check: c.status.value for c in cert.checks}
    assert runs["tool-filter-empty-lists"] == "finished", runs  # decided by its own parts
    parts = {p.name: p for p in rule.partitions if p.check == "tool-filter-empty-lists"}
    assert parts["globals-only"].drawn and parts["globals-only"].drawn_for == ["target"]
    cannot = {n for n, p in parts.items() if p.inexpressible_for}
    assert cannot == set(parts) - {"globals-only"}, parts
    assert all("presentation mode" in (parts[n].inexpressible or "") for n in cannot), parts
    line = summary([("TF-03", rule.partitions)]) or ""
    assert "; inexpressible on the target: " in line and "TF-03 empty-allow (target)" in line
    page = render_markdown(cert)
    assert "inexpressible on the target" in page and "\x1b" not in page


def test_a_native_only_target_that_reads_an_empty_allow_list_as_none_fails_tf03() -> None:
    rule = _tf03(_EmptyAllowIgnored, 0).rule("TF-03")
    assert rule.outcome is Outcome.FAIL, rule
    assert any("allow" in f.message or "[]" in f.message for f in rule.failures), rule.failures


def test_a_check_that_can_set_up_no_part_on_the_target_finds_its_rule_not_applicable() -> None:
    # no live restriction, and no channel declared but the live one: the empty-lists check
    # can build neither its both-mode parts nor its globals-only one (the child-view check
    # still judges TF-03 through a preset's filter, which this target has)
    cert = _tf03(_NoRestrictions, 0)
    runs = {c.check: c for c in cert.checks if c.provider is None}
    assert runs["tool-filter-empty-lists"].status.value == "unsupported", runs
    rule = cert.rule("TF-03")
    assert rule.outcome is Outcome.PASS, rule
    child = [c for c in cert.checks if c.check == "tool-filter-child-view"]
    assert child and all(c.status.value == "finished" for c in child), child


SHAPES = tuple(Partition("PE-05", f"shape-{n}", f"shape {n}",
                         cases=st.integers(0, 9).map(lambda v, n=n: (n, v)),
                         member=lambda value, n=n: value[0] == n) for n in range(4))


def _context(body: Any, seed: int) -> CheckContext:
    chk = Check("shapes", ("PE-05",), body, partitions=SHAPES)
    return CheckContext(target=None, check=chk, edition=None, provider=None,  # type: ignore[arg-type]
                        providers=[], seed=seed, max_examples=3)


def _cannot(value: tuple[int, int]) -> None:
    if value[0] >= 2:  # shapes 2 and 3 need an operation the target has not
        raise Unsupported("run-code", "run_code", "no run_code here")


@pytest.mark.parametrize("seed", [0, 1, 17])
def test_cover_draws_around_values_the_target_cannot_set_up_and_still_decides_the_rule(
        seed: int) -> None:
    ctx = _context(lambda c: c.cover("PE-05", lambda v: (_cannot(v), c.expect("PE-05", True,
                                                                              "holds"))), seed)
    run_check(ctx)
    assert ctx.unsupported is None and "PE-05" in ctx.exercised and not ctx.failures
    assert set(ctx.drawn) == {("PE-05", "shape-0"), ("PE-05", "shape-1")}
    assert set(ctx.inexpressible) == {("PE-05", "shape-2"), ("PE-05", "shape-3")}
    assert "no run_code here" in ctx.inexpressible["PE-05", "shape-2"]


def test_a_failure_in_a_part_the_target_can_set_up_fails_the_rule_beside_one_it_cannot() -> None:
    ctx = _context(lambda c: c.cover("PE-05", lambda v: (_cannot(v), c.expect(
        "PE-05", v[0] != 1, "shape 1 is wrong"))), 0)
    run_check(ctx)
    assert [f.rule for f in ctx.failures][:1] == ["PE-05"] and ctx.unsupported is None


def test_a_native_only_target_has_tf12_judged_by_a_forged_call_in_its_native_mode() -> None:
    cert = _tf03(_NativeOnly, 0, "TF-12")
    runs = {(c.check, c.provider): c.status.value for c in cert.checks}
    assert runs["tool-filter-child-view", "spawn"] == "finished", runs
    assert cert.rule("TF-12").outcome is Outcome.PASS
    broken = _tf03(_NativeOnly, 0, "TF-12", host_class=SchemasOnlyHost)  # a forged call runs
    assert broken.rule("TF-12").outcome is Outcome.FAIL
    assert {f.check for f in broken.rule("TF-12").failures} == {"tool-filter-child-view"}


class _NoHeaders(ReferenceDeployment):
    def put_session_header(self, header: Any) -> None:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, "no writable session headers here")


def test_a_target_without_writable_headers_has_ca01_judged_by_requests_and_presets() -> None:
    cert = certify(_Target(_NoHeaders), RunConfig(target_spec="no-headers", seed=0,
                                                  rules=("CA-01", "CA-02")))
    for rule in ("CA-01", "CA-02"):
        assert cert.rule(rule).outcome is Outcome.PASS, cert.rule(rule)
    cannot = {p.name for p in cert.rule("CA-01").partitions if p.inexpressible_for}
    assert cannot and all(n.endswith("-in-a-descriptor") for n in cannot), cannot
    asked = [p for p in cert.rule("CA-01").partitions
             if p.name.endswith("-in-the-request") and (p.drawn_for or p.undrawn_for)]
    assert asked and all(p.drawn for p in asked), asked


class _ChildFilterLeaks(ReferenceDeployment):
    """The bug TF-13 names: a child composed with a filter puts it on its parent too."""

    def start(self, request: Any) -> Any:
        result = super().start(request)
        preset = self.host.presets.get(request.preset) if request.preset else None
        raw = request.toolFilter if request.toolFilter is not None else (
            preset.tool_filter if preset is not None else None)
        if raw is not None:
            super().install_restriction(request.parent, raw)
        return result


@pytest.mark.parametrize("deployment", [_NoRestrictions, ReferenceDeployment])
def test_tf13_is_judged_through_a_child_composed_with_a_filter(deployment: type) -> None:
    cert = _tf03(deployment, 0, "TF-13")
    rule = cert.rule("TF-13")
    assert rule.outcome is Outcome.PASS, rule
    drawn = {p.name for p in rule.partitions if p.drawn}
    assert "composed-child" in drawn, rule.partitions


def test_a_child_whose_filter_reaches_its_parent_fails_tf13_through_the_child_channel() -> None:
    rule = _tf03(_ChildFilterLeaks, 0, "TF-13").rule("TF-13")
    assert rule.outcome is Outcome.FAIL, rule
    assert any("the root's next request after a child composed" in f.message
               for f in rule.failures), [f.message for f in rule.failures]


def _judged_then_cannot(c: CheckContext, value: tuple[int, int]) -> None:
    if value[0] >= 2:
        c.expect("PE-05", True, "a step before the operation the target cannot set up")
        _cannot(value)


@pytest.mark.parametrize("seed", [0, 3])
def test_what_a_part_judged_before_an_operation_the_target_cannot_set_up_is_no_verdict(
        seed: int) -> None:
    ctx = _context(lambda c: c.cover("PE-05", lambda v: _judged_then_cannot(c, v)), seed)
    run_check(ctx)
    assert "PE-05" not in ctx.exercised, "a pass seen before the refusal counted"
    assert set(ctx.inexpressible) == {("PE-05", "shape-2"), ("PE-05", "shape-3")}

    def parts(c: CheckContext) -> None:
        with c.expressible("PE-05", "shape-2"):
            _judged_then_cannot(c, (2, 0))
            c.drew("PE-05", "shape-2")

    ctx = _context(parts, seed)
    run_check(ctx)
    assert "PE-05" not in ctx.exercised and not ctx.drawn and ctx.unsupported is None


class _NoColdResume(_NoHeaders):
    def resume(self, session: str) -> Any:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, "no cold resume here")


def test_de09_is_not_applicable_where_neither_headers_nor_cold_resume_exist() -> None:
    # measured on Claude Code: the deeper-header check's steps before it writes the header
    # passed DE-09 although no part of the rule's scenario could be set up
    rule = _tf03(_NoColdResume, 0, "DE-09").rule("DE-09")
    assert {p.outcome for p in rule.providers} == {Outcome.NOT_APPLICABLE}, rule.providers


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_property_stopped_by_an_operation_the_target_cannot_set_up_keeps_its_whole_cases(
        seed: int) -> None:
    ran: list[int] = []

    def case(c: CheckContext, value: int) -> None:
        ran.append(value)
        if value < 2:
            c.expect("PE-05", True, "a case the target could set up whole")
        else:
            _judged_then_cannot(c, (value, 0))

    def parts(c: CheckContext) -> None:
        with c.expressible("PE-05"):
            c.for_all(st.integers(0, 3), lambda v: case(c, v), max_examples=6)

    ctx = _context(parts, seed)
    run_check(ctx)
    stopped = bool(ran) and ran[-1] >= 2
    whole_before = any(v < 2 for v in (ran[:-1] if stopped else ran))
    assert ("PE-05" in ctx.exercised) == whole_before, ran
    assert (("PE-05", "") in ctx.inexpressible) == stopped, ran


def test_replies_a_part_scripted_before_an_operation_the_target_cannot_set_up_void_nothing(
) -> None:
    def case(c: CheckContext, value: tuple[int, int]) -> None:
        c.gateway.script(f"[tck:case:{value}]", text("never asked for"))
        _cannot((2, 0))

    def parts(c: CheckContext) -> None:
        c.gateway.script("[tck:before]", text("asked for by a scenario that ran"))
        with c.expressible("PE-05", "shape-2"):
            case(c, (2, 0))
        c.cover("PE-05", lambda v: case(c, v))

    ctx = _context(parts, 0)
    run_check(ctx)
    assert ctx.gateway.unconsumed() == {"[tck:before]": 1}  # only what came before the parts


class _RunCodeReservedOnlyWhereOffered(_NativeOnly):
    """A runtime with no run_code transport that lets a tool take the name: what opencode and
    Claude Code do (their baselines' TF-06 entries)."""

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        if tool.name == RUN_CODE and agent is None:  # an ordinary tool on its server
            tool = tool.model_copy(update={"name": f"mcp__kit__{RUN_CODE}"})
        super().register_tool(tool, agent)


@pytest.mark.parametrize("seed", [0, 3])
def test_a_native_only_target_has_tf06_judged_by_a_global_run_code_registration(
        seed: int) -> None:
    rule = _tf03(_NativeOnly, seed, "TF-06").rule("TF-06")
    assert rule.outcome is Outcome.PASS, rule
    parts = {p.name: p for p in rule.partitions}
    assert parts["register-global-run-code"].drawn, parts
    assert parts["native-mode"].drawn, parts  # its cases need no other mode
    assert {n for n, p in parts.items() if p.inexpressible_for} == {
        "register-local-run-code", "ptc-mode", "both-mode"}, parts


def test_a_native_only_target_that_lets_a_tool_take_the_name_run_code_fails_tf06() -> None:
    rule = _tf03(_RunCodeReservedOnlyWhereOffered, 0, "TF-06").rule("TF-06")
    assert rule.outcome is Outcome.FAIL, rule
    assert any(f.message.startswith("registering a global run_code in mode native (")
               and "accepted, expected a refusal with RESERVED_NAME" in f.message
               for f in rule.failures), rule.failures
