"""The partitions a check declares of its rules' domains (conformance/engine/partitions.py):
misuse refused when the check is defined, drawn at every seed by cover, recorded in the
certificate and every report (docs/certify.md#partitions)."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import strategies as st

from subagent_tck.conformance.cli import main
from subagent_tck.conformance.core.certificate import Certificate
from subagent_tck.conformance.core.drawn import Drawing
from subagent_tck.conformance.engine import check as check_module
from subagent_tck.conformance.engine.check import (
    Check,
    CheckContext,
    CheckDefinitionError,
    check,
)
from subagent_tck.conformance.engine.check_run import run_check
from subagent_tck.conformance.engine.partitions import Partition
from subagent_tck.conformance.engine.runner import RunConfig, Suite, certify
from subagent_tck.conformance.report import report_markdown, report_text


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    own: dict[str, object] = {}
    monkeypatch.setattr(check_module, "REGISTRY", own)
    return own


@pytest.mark.parametrize(("partitions", "says"), [
    ((Partition("TF-02", "denied", "a denied tool"),), "does not cite TF-02"),
    ((Partition("TF-01", "Denied Tool", "a denied tool"),), "lower-case words joined by '-'"),
    ((Partition("TF-01", "denied", "a"), Partition("TF-01", "denied", "b")), "declared twice"),
    ((Partition("TF-01", "denied", "  "),), "say what it covers"),
    ((Partition("TF-01", "denied", "a", member=bool),), "give cases= too"),
    ((Partition("TF-01", "denied", "a", cases=[1, 2]),), "takes a Hypothesis strategy"),  # type: ignore[arg-type]
    (("denied",), "takes Partition values"),
    (Partition("TF-01", "denied", "a"), "a tuple of Partition values"),
])
def test_a_misdeclared_partition_is_refused_when_the_check_is_defined_naming_the_fix(
    registry: dict[str, object], partitions: Any, says: str,
) -> None:
    with pytest.raises(CheckDefinitionError, match=says):
        @check("TF-01", partitions=partitions)
        def filtered(ctx: CheckContext) -> None:
            pass

    assert not registry


def test_a_check_keeps_the_partitions_it_declares(registry: dict[str, Check]) -> None:
    parts = (Partition("TF-01", "denied", "a denied tool"),
             Partition("TF-02", "two-restrictions", "two restrictions", cases=st.just(2)))

    @check("TF-01", "TF-02", partitions=parts)
    def filtered(ctx: CheckContext) -> None:
        pass

    assert registry["filtered"].partitions == parts


def context(chk: Check, seed: int = 0, max_examples: int = 3) -> CheckContext:
    return CheckContext(target=None, check=chk, edition=None, provider=None,  # type: ignore[arg-type]
                        providers=[], seed=seed, max_examples=max_examples)


#: Six partitions with cases and one reached by a hand-written case.
SHAPES = tuple(Partition("PE-05", f"shape-{n}", f"shape {n}",
                         cases=st.integers(0, 9).map(lambda v, n=n: (n, v)),
                         member=lambda value, n=n: value[0] == n) for n in range(6))
EXPLICIT = Partition("PE-05", "inherited", "the inherited persona")


@pytest.mark.parametrize("seed", range(0, 200, 7))
def test_cover_draws_a_case_of_every_partition_at_every_seed_on_a_budget_smaller_than_them(
    seed: int,
) -> None:
    ran: list[tuple[int, int]] = []

    def body(ctx: CheckContext) -> None:
        ctx.drew("PE-05", "inherited")  # a hand-written case, outside any property
        ctx.cover("PE-05", ran.append)

    chk = Check("shapes", ("PE-05",), body, partitions=(*SHAPES, EXPLICIT))
    ctx = context(chk, seed, max_examples=2)
    run_check(ctx)
    assert not ctx.failures
    assert {n for n, _ in ran} == set(range(6))
    assert ctx.drawn == {**{("PE-05", f"shape-{n}"): Drawing.COVER for n in range(6)},
                         ("PE-05", "inherited"): Drawing.EXAMPLE}


@pytest.mark.parametrize(("given", "profile", "most"), [(2, 10, 2), (20, 3, 3)])
def test_a_cover_budget_given_by_the_check_lowers_the_profile_s_never_raises_it(
    given: int, profile: int, most: int,
) -> None:
    ran: list[tuple[int, int]] = []
    chk = Check("shapes", ("PE-05",), lambda c: c.cover("PE-05", ran.append,
                                                          max_examples=given),
                partitions=SHAPES)
    ctx = context(chk, 3, max_examples=profile)
    run_check(ctx)
    tops = len(SHAPES) - len({n for n, _ in ran[:most]})
    assert {n for n, _ in ran} == set(range(6))  # the partitions the budget missed: topped up
    assert len(ran) <= most + tops


def test_a_partition_reached_only_inside_a_property_is_recorded_as_drawn_by_chance() -> None:
    def body(ctx: CheckContext) -> None:
        ctx.for_all(st.integers(0, 3), lambda _: ctx.drew("PE-05", "inherited"))

    ctx = context(Check("luck", ("PE-05",), body, partitions=(EXPLICIT,)))
    run_check(ctx)
    assert ctx.drawn == {("PE-05", "inherited"): Drawing.CHANCE}


def test_drawing_an_undeclared_partition_is_a_check_definition_error() -> None:
    def body(ctx: CheckContext) -> None:
        ctx.drew("PE-05", "nowhere")

    chk = Check("undeclared", ("PE-05",), body, partitions=(EXPLICIT,))
    with pytest.raises(CheckDefinitionError, match="does not declare"):
        body(context(chk))


def test_a_partition_drawn_by_a_check_that_does_not_declare_it_is_an_error_not_a_fail() -> None:
    ctx = context(Check("undeclared", ("PE-05",), lambda c: c.drew("PE-05", "nowhere"),
                        partitions=(EXPLICIT,)))
    run_check(ctx)
    [failure] = ctx.failures
    assert failure.error and "defined wrongly" in failure.message


def test_a_case_drawn_outside_its_partition_is_a_check_bug_not_a_pass() -> None:
    wrong = Partition("PE-05", "even", "an even number", cases=st.just(3),
                      member=lambda v: v % 2 == 0)
    ctx = context(Check("wrong", ("PE-05",), lambda c: c.cover("PE-05", lambda _: None),
                        partitions=(wrong,)))
    run_check(ctx)
    [failure] = ctx.failures
    assert failure.error and "check bug" in failure.message and not ctx.drawn


def test_a_failing_case_ends_cover_without_drawing_the_rest_on_purpose() -> None:
    def body(value: tuple[int, int]) -> None:
        ctx.expect("PE-05", value[0] != 0, "shape 0 fails")

    ctx = context(Check("fails", ("PE-05",), lambda c: c.cover("PE-05", body),
                        partitions=SHAPES), max_examples=1)
    run_check(ctx)
    assert ctx.failures and ("PE-05", "shape-0") in ctx.drawn
    assert len(ctx.drawn) < len(SHAPES)


def test_a_covered_partition_the_target_turns_out_not_to_have_is_inapplicable_not_drawn() -> None:
    ran: list[object] = []

    def absent(value: object) -> None:
        ran.append(value)
        ctx.inapplicable("PE-05", "shape-0")  # e.g. the target keeps nothing to rewrite

    ctx = context(Check("absent", ("PE-05",),
                        lambda c: c.cover("PE-05", absent, ["shape-0"]), partitions=SHAPES),
                  max_examples=1)
    run_check(ctx)
    assert ran and not ctx.failures
    assert ("PE-05", "shape-0") in ctx.inapplicable_partitions
    assert ("PE-05", "shape-0") not in ctx.drawn


# --- the certificate and the reports ------------------------------------------------------

DRAWS = (Partition("TF-91", "always", "drawn by every run"),
         Partition("TF-91", "spawn-only", "drawn for spawn only"),
         Partition("TF-92", "never", "declared, never drawn"))


def drawing(ctx: CheckContext) -> None:
    ctx.drew("TF-91", "always")
    if ctx.provider is not None and ctx.provider.name == "spawn":
        ctx.drew("TF-91", "spawn-only")
    for rule in ctx.check.rules:
        ctx.expect(rule, True, "fine")


def certified(fakes: ModuleType) -> Certificate:
    chk = Check("fake-filter", ("TF-91", "TF-92"), drawing, partitions=DRAWS)
    providers = [fakes.ProviderInfo(name=n, capabilities=["toolFilter"]) for n in ("spawn", "fork")]
    suite = Suite(fakes.RULES, {**fakes.CHECKS, "fake-filter": chk})
    return certify(fakes.FakeTarget(providers=providers), RunConfig(), suite=suite)


def test_the_certificate_lists_each_rules_partitions_with_the_runs_that_drew_them(
    fakes: ModuleType,
) -> None:
    cert = certified(fakes)
    parts = {p.name: p for p in cert.rule("TF-91").partitions}
    assert parts["always"].drawn and parts["always"].by is Drawing.EXAMPLE
    assert parts["always"].drawn_for == ["spawn", "fork"]
    assert not parts["spawn-only"].drawn and parts["spawn-only"].undrawn_for == ["fork"]
    [never] = cert.rule("TF-92").partitions
    assert not never.drawn and never.by is None and never.undrawn_for == ["spawn", "fork"]
    assert cert.rule("PE-91").partitions == []
    again = Certificate.model_validate_json(cert.model_dump_json())
    assert again.rule("TF-92").partitions == cert.rule("TF-92").partitions


def test_a_partition_that_does_not_exist_in_a_run_is_not_asked_of_it(fakes: ModuleType) -> None:
    def body(ctx: CheckContext) -> None:
        if ctx.provider is not None and ctx.provider.name == "fork":
            ctx.inapplicable("TF-91", "spawn-only")
        drawing(ctx)

    chk = Check("fake-filter", ("TF-91", "TF-92"), body, partitions=DRAWS)
    providers = [fakes.ProviderInfo(name=n, capabilities=["toolFilter"]) for n in ("spawn", "fork")]
    suite = Suite(fakes.RULES, {**fakes.CHECKS, "fake-filter": chk})
    cert = certify(fakes.FakeTarget(providers=providers), RunConfig(), suite=suite)
    part = next(p for p in cert.rule("TF-91").partitions if p.name == "spawn-only")
    assert part.drawn and part.drawn_for == ["spawn"] and part.inapplicable_for == ["fork"]


def test_a_run_that_timed_out_drew_nothing_and_says_so(fakes: ModuleType) -> None:
    def body(ctx: CheckContext) -> None:
        ctx.drew("TF-91", "always")
        fakes.RELEASE.wait(30)

    chk = Check("fake-filter", ("TF-91", "TF-92"), body, per_provider=False, partitions=DRAWS)
    suite = Suite(fakes.RULES, {**fakes.CHECKS, "fake-filter": chk})
    cert = certify(fakes.FakeTarget(), RunConfig(timeout=0.5), suite=suite)
    fakes.RELEASE.set()
    parts = {p.name: p for p in cert.rule("TF-91").partitions}
    assert not parts["always"].drawn and parts["always"].undrawn_for == ["target"]


def test_text_and_markdown_say_how_many_partitions_were_drawn_and_name_the_undrawn(
    fakes: ModuleType,
) -> None:
    cert = certified(fakes)
    text = report_text.render(cert, width=200)
    line = next(x for x in text.splitlines() if x.startswith("partitions:"))
    assert line == ("partitions: 1 of 3 drawn; undrawn: TF-91 spawn-only (fork), "
                    "TF-92 never (spawn, fork)")
    markdown = report_markdown.render(cert)
    assert "Partitions: 1 of 3 drawn" in markdown
    assert "| TF-92 | 0 of 1 | never (spawn, fork) |" in markdown


def test_explain_lists_the_partitions_the_checks_declare(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from subagent_tck.conformance.engine import checks

    chk = Check("shapes", ("PE-05",), lambda _: None, partitions=(*SHAPES[:2], EXPLICIT))
    monkeypatch.setattr(checks, "load_checks", lambda: {"shapes": chk})
    assert main(["explain", "PE-05", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["partitions"]
    assert [(p["name"], p["drawn_by"]) for p in listed] == [
        ("shape-0", "cover"), ("shape-1", "cover"), ("inherited", "example")]
    assert main(["explain", "PE-05"]) == 0
    out = capsys.readouterr().out
    assert "Partitions of its domain" in out and "inherited  example  the inherited persona" in out
    assert main(["explain", "PE-05", "--format", "markdown"]) == 0
    assert "- `shapes` **inherited** (example): the inherited persona" in capsys.readouterr().out
    monkeypatch.setattr(checks, "load_checks", lambda: {})
    assert main(["explain", "TF-01"]) == 0
    assert "Partitions: none declared by any check." in capsys.readouterr().out
