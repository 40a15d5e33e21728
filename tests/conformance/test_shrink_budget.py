"""CheckContext.for_all shrinks a failure within a budget of body runs (check.SHRINK_RUNS), and
reports it as one failure with its state, never as a crash."""

from __future__ import annotations

from hypothesis import strategies as st

from subagent_tck.conformance.engine.check import SHRINK_RUNS, Check, CheckContext
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import Edition


def context(max_examples: int = 10) -> CheckContext:
    target = reference_target()
    noop = Check("budget", ("TF-01",), lambda ctx: None, per_provider=False)
    return CheckContext(target=target, check=noop, edition=Edition.PRESET_COMPOSITION,
                        provider=None, providers=list(target.info().providers), seed=3,
                        max_examples=max_examples)


def test_a_failing_property_is_shrunk_within_the_budget_and_reported_once() -> None:
    ctx, runs = context(), []

    def body(values: list[int]) -> None:
        runs.append(values)
        ctx.expect("TF-01", sum(values) < 50, "the sum stays under 50", "< 50", sum(values))

    ctx.for_all(st.lists(st.integers(0, 10**6), min_size=1, max_size=30), body)
    first = next(i for i, v in enumerate(runs) if sum(v) >= 50)
    assert len(runs) - first - 1 <= SHRINK_RUNS
    assert len(ctx.failures) == 1 and ctx.failures[0].rule == "TF-01"
    assert ctx.failures[0].example is not None and not ctx.failures[0].error


def test_a_passing_property_runs_every_example_and_records_nothing() -> None:
    ctx, runs = context(max_examples=15), []
    ctx.for_all(st.integers(), lambda n: (runs.append(n), ctx.expect("TF-01", True, "ok")))
    assert len(runs) == 15 and not ctx.failures and "TF-01" in ctx.exercised
