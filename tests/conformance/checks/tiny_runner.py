"""A tiny runner for the check tests: the engine's public planner (``runner.plan``) decides
which checks run for which provider and edition, ``check_run.run_check`` runs each, and this
module only collects what each rule came to, cell by cell."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hypothesis import Phase, settings

from subagent_tck.conformance.core.dialect import channels_of
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.outcome import Failure
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.core.target import Deployment, Target
from subagent_tck.conformance.engine.check import REGISTRY, CheckContext
from subagent_tck.conformance.engine.check_run import run_check
from subagent_tck.conformance.engine.checks import load_checks
from subagent_tck.conformance.engine.runner import Suite, plan
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import CATALOGUE, Edition


@dataclass
class _Context(CheckContext):
    gateways: list[Gateway] = field(default_factory=list)

    def deploy(self, config: DeploymentConfig | None = None, *, tools: Any = (),
               **fields: Any) -> Deployment:
        deployment = super().deploy(config, tools=list(tools), **fields)
        self.gateways.append(self.gateway)
        return deployment


@dataclass
class Verdicts:
    """Per ``(rule, provider or None, edition)``: ``pass``, ``fail``, ``error``, ``n/a`` or
    ``not-run``; with every failure kept."""

    outcomes: dict[tuple[str, str | None, str], str] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)

    def failed_rules(self) -> set[str]:
        return {k[0] for k, v in self.outcomes.items() if v in ("fail", "error", "not-run")}

    def passed(self) -> set[tuple[str, str | None]]:
        """The (rule, provider) cells that passed, in some edition."""
        return {(k[0], k[1]) for k, v in self.outcomes.items() if v == "pass"}

    def bad(self) -> dict[tuple[str, str | None, str], str]:
        return {k: v for k, v in self.outcomes.items() if v in ("fail", "error", "not-run")}

    def explain(self) -> str:
        lines = [f"{k}: {v}" for k, v in sorted(self.bad().items(), key=repr)]
        lines += [f"  {f.rule} [{f.provider}] {f.check}: {f.message} "
                  f"(expected {f.expected!r}, observed {f.observed!r}, example {f.example})"
                  + (f"\n{f.traceback}" if f.traceback else "")
                  for f in self.failures[:12]]
        return "\n".join(lines)


#: When two checks decide one cell: any failure wins, then any pass (as the certificate
#: merges evidence), then not-run, then not-applicable.
_RANK = {"n/a": 0, "not-run": 1, "pass": 2, "fail": 3, "error": 4}


@contextmanager
def _no_shrinking() -> Iterator[None]:
    """Hypothesis without its shrink phase while the checks run: a test only needs to know
    that a rule fails, not the smallest state that shows it (the runner's profiles shrink)."""
    previous = settings.default  # the settings in force (public API: no private attribute)
    settings.register_profile("tiny-runner", previous,
                              phases=[p for p in Phase if p is not Phase.shrink])
    settings.load_profile("tiny-runner")
    try:
        yield
    finally:
        settings.register_profile("tiny-runner-restored", previous)
        settings.load_profile("tiny-runner-restored")


def run(target: Target, names: Iterable[str], *, editions: Iterable[Edition] | None = None,
        seed: int = 0, max_examples: int = 4, shrink: bool = False,
        providers: Iterable[str] | None = None) -> Verdicts:
    """Run the checks ``names`` on ``target`` in each edition it supports (or ``editions``),
    per-provider checks for each provider (or those named in ``providers``); drawn failures
    are not shrunk unless ``shrink``."""
    if not shrink:
        with _no_shrinking():
            return run(target, names, editions=editions, seed=seed,
                       max_examples=max_examples, shrink=True, providers=providers)
    load_checks()
    info = target.info()
    verdicts = Verdicts()
    for edition in editions or info.editions:
        # planned by the engine's own public planner (what applies to whom), then run
        suite = Suite(tuple(CATALOGUE), {name: REGISTRY[name] for name in names})
        for item in plan(suite, info, edition, None,
                         frozenset(providers) if providers is not None else None):
            chk, provider, planned, name = item.check, item.provider, item.rules, item.check.name
            ctx = _Context(target=target, check=chk, edition=edition, provider=provider,
                           providers=list(info.providers), seed=seed,
                           max_examples=max_examples,
                           channels=channels_of(info.restrictionChannels),
                           frame=info.promptFrame, guidance=info.toolGuidance,
                           preset_tools=info.presetTools)
            run_check(ctx)
            left = {m: n for g in ctx.gateways for m, n in g.unconsumed().items()}
            key = provider.name if provider else None
            for rule in planned:
                failures = [f for f in ctx.failures if f.rule == rule]
                crashed = any(f.traceback for f in ctx.failures)
                verdicts.failures.extend(failures)
                if failures:
                    outcome = "error" if all(f.error for f in failures) else "fail"
                elif crashed or left:
                    outcome = "error"
                    if left:
                        verdicts.failures.append(Failure(
                            rule=rule, check=name, title="", message=f"unconsumed {left}",
                            provider=key))
                elif rule in ctx.not_applicable:
                    outcome = "n/a"
                elif rule in ctx.exercised:
                    outcome = "pass"
                elif any(r == rule for r, _ in ctx.inexpressible):
                    outcome = "n/a"  # no part of the check could be set up on the target
                else:
                    outcome = "not-run"
                cell = (rule, key, edition.value)
                previous = verdicts.outcomes.get(cell, "n/a")
                if _RANK[outcome] >= _RANK[previous]:
                    verdicts.outcomes[cell] = outcome
                if crashed and not failures:
                    verdicts.failures.extend(f for f in ctx.failures if f.traceback)
    return verdicts


def checks_of(*modules: str) -> list[str]:
    """The names of the checks defined in the given check modules (e.g. ``"depth"``)."""
    load_checks()
    wanted = {f"subagent_tck.conformance.engine.checks.{m}" for m in modules}
    return [name for name, chk in REGISTRY.items() if chk.function.__module__ in wanted]


def rules_of(*modules: str) -> set[str]:
    """The rules the checks of the given check modules cite."""
    return {rule for name in checks_of(*modules) for rule in REGISTRY[name].rules}


def reference_passes(*modules: str, **options: Any) -> Verdicts:
    """Run the checks of the given check modules on the reference target in both editions
    (``options`` as :func:`run` takes them): none of them may fail; their verdicts."""
    verdicts = run(reference_target(), checks_of(*modules), editions=tuple(Edition), **options)
    assert not verdicts.bad(), verdicts.explain()
    return verdicts
