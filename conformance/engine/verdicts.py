"""Verdicts: what one check run saw becomes evidence per rule, and evidence goes into the
certificate's cells (docs/architecture.md#rooms).

A check that raises, a target that throws, a check that hangs, and a scripted model reply the
target never asked for are all ``error`` outcomes, never a pass. A rule the check cites but
never decided is ``not-run``. A supplementary check (the fuzz campaign) only adds failures to
the cells other checks decide.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from subagent_tck.spec import StopReason

from ..core.certificate import RunStatus
from ..core.gateway import Gateway
from ..core.outcome import Evidence, Failure, Outcome
from ..core.protocol import DeploymentConfig, RunResult
from ..core.target import Deployment
from ..core.unsupported import deployed, guard
from .check import CheckContext
from .planning import Cell, PlannedCheck, Table

#: How many causes a failure lists, and how long a child's error text may be in one.
MAX_CAUSES = 5
MAX_CAUSE_CHARS = 1000


@dataclass
class RunContext(CheckContext):
    """A check context that remembers every gateway it handed out (for unconsumed scripts),
    every deployment, and every child run that did not complete (the causes of failures)."""

    gateways: list[Gateway] = field(default_factory=list)
    deployments: list[Deployment] = field(default_factory=list)
    stopped: list[RunResult] = field(default_factory=list)

    def deploy(self, config: DeploymentConfig | None = None, *, tools: Sequence[str] = (),
               **fields: object) -> Deployment:
        # an UNSUPPORTED_OPERATION answer is judged here, by the call the kit made
        # (docs/driver-api.md#unsupported-operations)
        mode = config.mode if config is not None else fields.get("mode")
        deployment = guard(deployed(lambda: super(RunContext, self).deploy(
            config, tools=list(tools), **fields), mode))
        self.gateways.append(self.gateway)
        # the latest few only: a property check deploys once per example, and the failing
        # (shrunk) example runs last
        self.deployments = [*self.deployments[-(MAX_CAUSES - 1):], deployment]
        for name in ("start", "run_turn"):
            self._record_runs(deployment, name)
        return deployment

    def _record_runs(self, deployment: Deployment, name: str) -> None:
        method = getattr(deployment, name, None)
        if not callable(method):
            return

        def recorded(*args: object, **kwargs: object) -> object:
            result = method(*args, **kwargs)
            if isinstance(result, RunResult) and result.stopReason != StopReason.COMPLETED:
                self.stopped = [*self.stopped[-(MAX_CAUSES - 1):], result]
            return result

        with contextlib.suppress(AttributeError, TypeError):  # slots: no causes recorded
            setattr(deployment, name, recorded)

    def causes(self) -> tuple[str | None, str | None]:
        """Why children did what they did in this check: the stop reasons and error texts of
        runs that did not complete, and what a provider raised (with its traceback)."""
        lines: list[str] = []
        trace: str | None = None
        for deployment in self.deployments:
            faults = getattr(deployment, "faults", None)
            try:
                found = list(faults()) if callable(faults) else []
            except Exception:  # a cause is a courtesy: never a crash of the kit
                found = []
            for provider, error, text in found[:MAX_CAUSES]:
                lines.append(f"provider {provider} raised {error}")
                trace = trace or text
        for result in self.stopped:
            output = result.output if isinstance(result.output, str) else repr(result.output)
            said = (f": {output[:MAX_CAUSE_CHARS]}" if output.strip()
                    else ", and the target gave no text with it")
            lines.append(f"the child {result.agent} stopped with stop reason "
                         f"{result.stopReason.value!r}{said}")
        for gateway in self.gateways:
            # what the target's model client sent that no endpoint accepts: its run then failed
            for reason in gateway.off_shape[:MAX_CAUSES]:
                lines.append("the model gateway refused a request of the target (HTTP 400): "
                             f"{reason[:MAX_CAUSE_CHARS]}")
            # connections over the gateway server's limit: a model request may never have come
            told = getattr(gateway, "turned_away", None)
            turned_away = told() if callable(told) else None
            if turned_away is not None:
                lines.append(turned_away)
        return ("; ".join(dict.fromkeys(lines)) or None), trace


def _with_causes(ctx: RunContext, out: dict[str, Evidence]) -> dict[str, Evidence]:
    """``out`` with every failure that has no cause yet given the causes the check's children
    left (new failures: a :class:`Failure` is never changed after it is made)."""
    if not any(e.failures for e in out.values()):
        return out
    cause, trace = ctx.causes()
    update = {k: v for k, v in (("cause", cause), ("traceback", trace)) if v is not None}
    if not update:
        return out

    def caused(failure: Failure) -> Failure:
        missing = {k: v for k, v in update.items() if getattr(failure, k) is None}
        return failure.model_copy(update=missing) if missing else failure

    return {rule: Evidence(e.outcome, e.reason, [caused(f) for f in e.failures])
            for rule, e in out.items()}


def error(planned: PlannedCheck, rule: str, message: str, title: str,
          trace: str | None = None) -> Failure:
    """An error of ``rule`` in ``planned``'s run: what the kit saw instead of a verdict."""
    return Failure(
        rule=rule, check=planned.check.name, title=title, message=message, error=True,
        provider=planned.provider.name if planned.provider else None, traceback=trace,
    )


def judge(planned: PlannedCheck, ctx: RunContext,
          titles: Mapping[str, str]) -> tuple[dict[str, Evidence], RunStatus]:
    """Turn a finished check context into evidence per decided rule, and the run's status.

    A check that stopped on an exception leaves its undecided rules ``error`` (never pass);
    so does a clean run that left scripted model replies unconsumed: its scenario did not
    happen as designed, so nothing it saw can certify.
    """
    void: str | None = None
    trace: str | None = None
    status = RunStatus.FINISHED
    crash = next((f for f in ctx.failures if f.traceback), None)
    if crash is not None:
        status, trace = RunStatus.CRASHED, crash.traceback
        void = f"not decided: check {planned.check.name} stopped early ({crash.message})"
    elif ctx.unsupported is not None:
        status = RunStatus.UNSUPPORTED  # its scenario stopped: replies left are no fault
    elif not ctx.failures:
        left = {m: n for g in ctx.gateways for m, n in g.unconsumed().items()}
        if left:
            markers = ", ".join(f"{m!r} ({n} repl{'y' if n == 1 else 'ies'} left)"
                                for m, n in sorted(left.items()))
            status = RunStatus.UNCONSUMED_SCRIPT
            void = (f"the target never asked for the model replies scripted for {markers}: "
                    f"the scenario of check {planned.check.name} did not happen, so its "
                    "verdict is void")
    out: dict[str, Evidence] = {}
    for rule in planned.rules:
        failures = [f for f in ctx.failures if f.rule == rule]
        if failures:
            outcome = Outcome.ERROR if all(f.error for f in failures) else Outcome.FAIL
            out[rule] = Evidence(outcome, "", failures)
        elif void is not None:
            out[rule] = Evidence(Outcome.ERROR, "", [
                error(planned, rule, void, titles[rule], trace)])
        elif ctx.unsupported is not None:
            out[rule] = Evidence(Outcome.NOT_APPLICABLE, ctx.not_applicable.get(
                rule, ctx.unsupported), inexpressible=True)
        elif rule in ctx.exercised:  # verified at least once: a skip of another case is moot
            out[rule] = Evidence(Outcome.PASS)
        elif reasons := [why for (r, _), why in ctx.inexpressible.items() if r == rule]:
            # every part of the check that reached the rule stopped at an operation the
            # target cannot express (CheckContext.expressible)
            out[rule] = Evidence(Outcome.NOT_APPLICABLE, reasons[0], inexpressible=True)
        elif rule in ctx.not_applicable:
            out[rule] = Evidence(Outcome.NOT_APPLICABLE, ctx.not_applicable[rule])
        else:
            out[rule] = Evidence(
                Outcome.NOT_RUN, f"check {planned.check.name} ran but never verified this rule")
    return _with_causes(ctx, out), status


def all_errors(planned: PlannedCheck, message: str,
               titles: Mapping[str, str]) -> dict[str, Evidence]:
    """Every rule of ``planned`` an error with ``message`` (a run that timed out, a deadline)."""
    return {rule: Evidence(Outcome.ERROR, "", [error(planned, rule, message, titles[rule])])
            for rule in planned.rules}


def _add_findings(table: Table, undecided: set[Cell], rule_id: str, evidence: Evidence,
                  filed: set[tuple[str, str, str | None]]) -> None:
    """File what a supplementary check found for ``rule_id``: each failure in the cell of its
    provider when that cell is decided here, else in the rule's target-wide cell, else in every
    provider cell of the rule that applies (a fault of the shared runtime, seen through no
    provider in particular). Passes and not-runs of a supplementary check decide nothing. A
    failure whose check, rule and provider an earlier run of the same check already filed
    (``filed``: another shard of the campaign found the same) is not filed again."""
    if evidence.outcome not in (Outcome.FAIL, Outcome.ERROR):
        return
    for failure in evidence.failures:
        if (failure.check, failure.rule, failure.provider) in filed:
            continue
        own = (rule_id, failure.provider)
        if own in undecided:
            cells = [own]
        elif (rule_id, None) in undecided:
            cells = [(rule_id, None)]
        else:
            cells = sorted((key for key in undecided if key[0] == rule_id),
                           key=lambda key: key[1] or "")
        outcome = Outcome.ERROR if failure.error else Outcome.FAIL
        for cell in cells or [(rule_id, None)]:  # never lost, even where no check decides
            table.setdefault(cell, []).append(Evidence(outcome, "", [failure]))


def record(table: Table, undecided: set[Cell], planned: PlannedCheck,
           results: Mapping[str, Evidence]) -> None:
    """Put one check run's evidence into the certificate's cells (in plan order, whatever the
    order the runs finished in: the cells then read the same however the runs were
    scheduled)."""
    key = planned.provider.name if planned.provider else None
    filed = {(f.check, f.rule, f.provider) for cell in table.values()
             for e in cell for f in e.failures
             if f.check == planned.check.name} if planned.check.supplementary else set()
    for rule_id, evidence in results.items():
        if planned.check.supplementary:
            _add_findings(table, undecided, rule_id, evidence, filed)
        else:
            table[rule_id, key].append(evidence)


def not_run_after_interrupt(table: Table, undecided: set[Cell]) -> None:
    """After Ctrl-C: every decided cell that no check filled is not-run, saying why."""
    for cell in undecided:
        if not table[cell]:
            table[cell].append(Evidence(Outcome.NOT_RUN, "interrupted (Ctrl-C) before it ran"))
