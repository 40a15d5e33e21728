"""The fuzz campaign as a check of every whole ``certify`` run (docs/certify.md#profiles): the
certificate includes what the generated campaign finds, in ``ci`` (a fixed number of
deployments) as in ``thorough`` (a minute by default).

The conformance runner never imports fuzz (docs/architecture.md): the command line builds
this check lazily and adds it to the run's suite. It is *supplementary*
(:attr:`~subagent_tck.conformance.engine.check.Check.supplementary`): a divergence becomes a
failure of
the rule the divergent observation belongs to (:mod:`.rulemap`), filed beside what the fixed
cases found, with the shrunk steps as its example and the ``subagent-tck fuzz --replay`` command
that shows it alone; a campaign that finds nothing decides nothing (the fixed cases do). A target
that breaks during the campaign (unreachable, non-deterministic) leaves the rules the campaign
compared as ``error``: a run whose fuzzing could not finish certifies nothing.
"""

from __future__ import annotations

import os
import shlex

from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.seed import derived
from subagent_tck.spec import RULES_BY_ID

from .campaign import DEFAULT_OUTPUT, PROFILES, CampaignResult, Progress, run_campaign
from .rulemap import OBSERVATION_RULES, OP_OBSERVATIONS

NAME = "fuzz-campaign"
#: The default time a thorough run fuzzes (``certify --fuzz-budget``).
DEFAULT_BUDGET = 60.0
#: The time the runner grants a campaign bounded by deployments only: far above what 381
#: deployments take (about 8 s against the reference), so that only a hung target meets it.
UNCAPPED_TIMEOUT = 600.0
#: Every rule a divergence can be filed under (the check cites them all): every catalogue rule,
#: since the diagnosis may name any (a wrong view can be CA-04, FR-04, EN-01, ST-07...), so that a
#: finding is always filed under its exact rule id.
CAMPAIGN_RULES: tuple[str, ...] = tuple(sorted(RULES_BY_ID))
#: Time the runner grants beyond budget and shrinking: replaying and saving the finding.
_MARGIN_SECONDS = 60.0
#: The independent parts a campaign runs as (docs/certify.md#jobs), each with its share of the
#: deployments and of the time cap and a seed derived from the run's: a fixed number, whatever
#: ``--jobs`` is, so that a seed runs the same deployments one at a time or four at once.
SHARDS = 4


def campaign_check(
    target_spec: str,
    *,
    budget_seconds: float | None = DEFAULT_BUDGET,
    max_examples: int | None = None,
    output_dir: str | os.PathLike[str] = DEFAULT_OUTPUT,
    progress: Progress | None = None,
    profile: str = "thorough",
    shards: int = SHARDS,
) -> Check:
    """A supplementary check that fuzzes the run's target in the run's edition, and files what
    it finds: ``max_examples`` deployments (None: no limit), stopped after ``budget_seconds``
    (None: no wall-clock cap, the examples alone decide, so the run is the same whatever the
    machine's speed), in ``shards`` parts that share both (each seeded from the run's seed and
    its number; one part: the run's seed itself). ``target_spec`` (the TARGET of the command
    line) goes into the replay command; ``profile`` (the certify profile) is noted."""
    fuzz = PROFILES["ci"]  # steps per deployment and shrinking time
    budget = float("inf") if budget_seconds is None else budget_seconds
    cap = budget / shards

    def fuzz_campaign(ctx: CheckContext) -> None:
        part = ctx.shard
        share = None if max_examples is None else _share(max_examples, part, shards)
        result = run_campaign(
            ctx.target, budget_seconds=cap, max_examples=10**12 if share is None else share,
            seed=derived(ctx.seed, NAME, part) if shards > 1 else ctx.seed,
            profile=fuzz.name, database_dir=None, progress=_labelled(progress, part, shards),
            output_dir=output_dir,
            target_id=target_spec, editions=(ctx.edition,),
        )
        ctx.note = _note(result, profile) + (f", shard {part + 1} of {shards}"
                                             if shards > 1 else "")
        if (result.finding is None and result.error is None and share is not None
                and result.examples < share):
            ctx.note += (f"; cut by the {cap:g} s time cap before {share} "
                         "deployments (a slow target: --fuzz-budget raises it)")
        if result.finding is not None:
            _file_finding(ctx, result, target_spec)
        elif result.error is not None:
            # a flaky example leaves undecided only the rules its divergence named; any other
            # error (the target went away) every rule the campaign compared
            compared = [r for r in result.unsettled or result.rules_exercised
                        if r in CAMPAIGN_RULES]
            for rule in compared or [CAMPAIGN_RULES[0]]:
                ctx.fail(rule, f"the fuzz campaign could not finish: {result.error}",
                         error=True, key="the fuzz campaign could not finish")

    timeout = (UNCAPPED_TIMEOUT if budget_seconds is None
               else cap + fuzz.shrink_seconds + _MARGIN_SECONDS)
    return Check(
        name=NAME, rules=CAMPAIGN_RULES, function=fuzz_campaign, per_provider=False,
        supplementary=True, doc=(__doc__ or "").split("\n")[0], timeout=timeout,
        shards=shards,
    )


def _labelled(progress: Progress | None, part: int, parts: int) -> Progress | None:
    """``progress`` with each line saying which shard it is from (when there are several)."""
    if progress is None or parts == 1:
        return progress
    return lambda line: progress(f"[shard {part + 1} of {parts}] {line}")


def _share(total: int, part: int, parts: int) -> int:
    """Part ``part``'s share of ``total`` deployments: equal shares, the first ones one more."""
    return total // parts + (1 if part < total % parts else 0)


def _note(result: CampaignResult, profile: str) -> str:
    head = ("a divergence" if result.finding is not None
            else "stopped: " + result.error if result.error is not None
            else "no divergence")
    return (f"{head}: {result.examples} deployments, {result.steps} steps in "
            f"{result.seconds:.1f} s ({result.steps_per_second:.0f} steps/s), seed "
            f"{result.seed}, {len(result.rules_exercised)} rules compared (profile {profile})")


def _file_finding(ctx: CheckContext, result: CampaignResult, target_spec: str) -> None:
    finding = result.finding
    assert finding is not None
    crash = finding.rule is None
    rule = finding.rule or _rule_of_operation(finding.op)
    if rule not in CAMPAIGN_RULES:  # pragma: no cover - the rule map names catalogue rules
        raise AssertionError(f"the fuzzer named {rule!r}, which is not a catalogue rule")
    steps = result.counterexample
    lines = [f"{n:>3}. {step.render()}" + ("   <-- diverged here" if n == finding.step else "")
             for n, step in enumerate(steps, 1)]
    setup = (f"a deployment in edition {result.edition.value if result.edition else '?'}, "
             f"mode {result.mode.value if result.mode else '?'}, global tools {result.tools}")
    also = [r for r in finding.rules[1:] if r != rule]
    message = (
        f"fuzzing found {'a crash' if crash else 'a divergence from the spec oracle'} at step "
        f"{finding.step} of {len(steps)} ({finding.observation}, {finding.op}): "
        f"{finding.message}"
        + (f" [the observation also belongs to {', '.join(also)}]" if also else "")
        + (f" [warning: {result.error}]" if result.error else "")
    )
    ctx.fail(rule, message, finding.expected, finding.observed,
             example=f"{setup}; shrunk to {len(steps)} step{'' if len(steps) == 1 else 's'}:\n"
             + "\n".join([*lines, *(f"     with {line}" for line in result.words)]),
             error=crash, provider=_provider_of(result, ctx),
             # the baseline's name for it: what was observed (its values are the draw's)
             key=f"{'a crash' if crash else 'a divergence'} in {finding.observation}",
             also=also,
             replay=shlex.join(["subagent-tck", "fuzz", "--replay", result.replay_path,
                                "--target", target_spec]) if result.replay_path else None)


def _rule_of_operation(op: str) -> str:
    """The rule a crash of ``op`` is filed under: its first observation's primary rule."""
    for observation in OP_OBSERVATIONS.get(op, ()):
        rules = OBSERVATION_RULES.get(observation, ())
        if rules:
            return rules[0]
    return CAMPAIGN_RULES[0]


def _provider_of(result: CampaignResult, ctx: CheckContext) -> str | None:
    """The provider of the diverging step when it started a child through one the target
    ships; None (the shared runtime) otherwise."""
    finding = result.finding
    if finding is None or not 0 < finding.step <= len(result.counterexample):
        return None
    provider = result.counterexample[finding.step - 1].args.get("provider")
    names = {p.name for p in ctx.providers}
    return provider if isinstance(provider, str) and provider in names else None
