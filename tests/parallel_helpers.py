"""Certify one target at one seed with ``--jobs 1`` and ``--jobs 2`` (docs/certify.md#jobs):
the helper of the tests that prove a certificate does not depend on how many check runs ran at
once. Importable by name from worker processes (tests/ is on the path pytest hands them), so
that its suite factory pickles."""

from __future__ import annotations

import difflib
import functools
from pathlib import Path

from subagent_tck.conformance.core.certificate import Certificate
from subagent_tck.conformance.engine.runner import Recipe, RunConfig, Suite, certify
from subagent_tck.conformance.report.report_json import render
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.fuzz.campaign_check import campaign_check
from subagent_tck.spec import Edition

#: Deployments of the campaign: four shards of six, with no time cap (the examples alone
#: decide, so a loaded machine runs the same steps): enough to show its shards merge the same.
CAMPAIGN = 24


def small_suite(spec: str, out: str) -> Suite:
    """The default suite with a campaign of :data:`CAMPAIGN` deployments in its four shards."""
    check = campaign_check(spec, budget_seconds=None, max_examples=CAMPAIGN, output_dir=out,
                           profile="ci")
    default = Suite.default()
    return Suite(default.rules, {**default.checks, check.name: check})


def certify_with_jobs(spec: str, jobs: int, *, seed: int, out: Path,
                      edition: Edition | None = None) -> Certificate:
    suite = functools.partial(small_suite, spec, str(out))
    target = load_target(spec)
    try:
        return certify(target, RunConfig(target_spec=spec, seed=seed, edition=edition,
                                         jobs=jobs),
                       suite=suite(), recipe=Recipe(functools.partial(load_target, spec), suite))
    finally:
        target.close()


def same_whatever_the_jobs(spec: str, *, seed: int, out: Path,
                           edition: Edition | None = None) -> Certificate:
    """Certify twice, one job and two; assert the certificates are the same but for their
    clock readings and their ``jobs`` record; return the two-job one."""
    one = certify_with_jobs(spec, 1, seed=seed, out=out, edition=edition)
    two = certify_with_jobs(spec, 2, seed=seed, out=out, edition=edition)
    assert one.jobs is None and two.jobs is not None and two.jobs.why is None, two.jobs
    assert two.jobs.used == 2, two.jobs  # both workers loaded the target and ran
    shards = [run for run in two.checks if run.check == "fuzz-campaign"]
    assert [run.note.rsplit("shard ", 1)[1][:6] for run in shards if run.note] == [
        f"{n} of 4" for n in range(1, 5)]
    assert outcomes(one) == outcomes(two)
    before, after = render(one.stable()), render(two.stable())
    assert before == after, "the certificates differ (one job, then two):\n" + "\n".join(
        list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm=""))[:60])
    return two


def outcomes(cert: Certificate) -> list[tuple[str, list[tuple[str | None, str]]]]:
    """Every cell's outcome, rule by rule."""
    return [(r.id, [(p.provider, p.outcome.value) for p in r.providers]) for r in cert.rules]
