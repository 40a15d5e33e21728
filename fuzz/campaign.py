"""Fuzz campaigns: run the state machine against a target within a budget, and replay findings.

:func:`run_campaign` runs :mod:`.machine` in rounds of Hypothesis examples until the time budget
or the example budget is spent or a divergence is found. Each round is seeded from the
campaign's seed (fixed in the ``ci`` profile), so a campaign is reproducible; Hypothesis's
example database (a directory, by default ``.subagent-tck/fuzz-db``) keeps every failing
example, keyed by target, and replays it first next time, so a failure found once is found
again at once, by any worker sharing the directory. A divergence is shrunk by Hypothesis to the
shortest sequence it can find, saved as a :mod:`.replay` file and described step by step
(:meth:`CampaignResult.report`). :func:`replay` re-executes such a file.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.database import ExampleDatabase
from hypothesis.errors import Flaky, Unsatisfiable
from pydantic import BaseModel, Field

from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.engine import draw_cache
from subagent_tck.conformance.engine.stable_draws import stable_draws
from subagent_tck.spec import RULES_BY_ID, Edition, ErrorCode, PresentationMode, TckError

from . import round_cache
from .database import DEFAULT_DATABASE, DIVERGENCE_SUFFIX, open_database
from .lockstep_core import Setup
from .machine import (
    BURST,
    FuzzMachine,
    database_key,
    machine_for,
    state_machine_test,
    test_key,
)
from .replay import ReplayFile, load_replay, replay_name, replay_steps
from .rulemap import rules_compared
from .shrink import shrink
from .step import Divergence, Finding, Step

DEFAULT_OUTPUT = os.path.join(".subagent-tck", "fuzz")

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Profile:
    """How long and how hard a campaign searches."""

    name: str
    budget_seconds: float
    max_examples: int
    steps_per_example: int
    seed: int | None  # None: a fresh random seed per campaign (printed, so it can be reused)
    shrink_seconds: float = 10.0  # at most this long shrinking a divergence, after the budget


PROFILES: dict[str, Profile] = {
    "ci": Profile("ci", budget_seconds=30.0, max_examples=2_000, steps_per_example=60, seed=0,
                  shrink_seconds=10.0),
    "nightly": Profile(
        "nightly", budget_seconds=3_600.0, max_examples=10_000_000, steps_per_example=100,
        seed=None, shrink_seconds=120.0,
    ),
}


class CampaignResult(BaseModel):
    """What a campaign (or a replay) ran and found."""

    target: str
    profile: str
    seed: int | None = None
    examples: int = 0
    steps: int = 0
    seconds: float = 0.0
    steps_per_second: float = 0.0
    operations: dict[str, int] = Field(default_factory=dict)
    rules_exercised: list[str] = Field(default_factory=list)
    finding: Finding | None = None
    #: the shrunk steps that show the finding, and the set-up they run in
    counterexample: list[Step] = Field(default_factory=list)
    edition: Edition | None = None
    mode: PresentationMode | None = None
    tools: list[str] = Field(default_factory=list)
    #: the deployment's words the counterexample needs (fuzz/lexicon.py): its presets, variables
    words: list[str] = Field(default_factory=list)
    replay_path: str | None = None
    #: (steps, seconds) when the first divergence was seen, before shrinking
    first_divergence: tuple[int, float] | None = None
    #: for a replay: whether the file's finding showed again (same step, observation, rule)
    reproduced: bool | None = None
    #: a problem that is not a divergence (a flaky target, an unreachable one)
    error: str | None = None
    #: for a flaky example: the rules its first run's divergence named (only they are left
    #: undecided; empty when the first run showed no divergence to name them)
    unsettled: list[str] = Field(default_factory=list)
    #: HypoFuzz's worker processes on this machine (None: the in-process engine)
    workers: int | None = None

    @property
    def diverged(self) -> bool:
        return self.finding is not None

    def report(self, target_spec: str | None = None) -> str:
        """A readable account: numbered steps, expected and observed, rules, replay command."""
        if self.finding is None:
            head = "no divergence" if self.error is None else f"error: {self.error}"
            engine = "" if self.workers is None else f" by {self.workers} HypoFuzz worker(s)"
            return (f"{head}: {self.examples} examples, {self.steps} steps{engine} in "
                    f"{self.seconds:.1f}s ({self.steps_per_second:.0f} steps/s), "
                    f"{len(self.rules_exercised)} rules exercised")
        f = self.finding
        titles = [RULES_BY_ID[r].title if r in RULES_BY_ID else r for r in f.rules[:1]]
        lines = [
            f"DIVERGENCE from the spec oracle: {titles[0] if titles else 'no rule (a crash)'}"
            + (f" (the observation also belongs to {', '.join(f.rules[1:])})"
               if len(f.rules) > 1 else ""),
            f"target {self.target}, "
            + (f"seed {self.seed}" if self.workers is None else "found by HypoFuzz")
            + "; a deployment in edition "
            f"{self.edition.value if self.edition else '?'}, mode "
            f"{self.mode.value if self.mode else '?'}, global tools {self.tools}; shrunk to "
            f"{len(self.counterexample)} steps:",
        ]
        for number, step in enumerate(self.counterexample, 1):
            mark = "   <-- diverged here" if number == f.step else ""
            lines.append(f"  {number:>3}. {step.render()}{mark}")
        lines += [f"  with {line}" for line in self.words]
        lines += [
            f"observation ({f.observation}): {f.message}",
            f"  expected: {_short(f.expected)}",
            f"  observed: {_short(f.observed)}",
        ]
        if self.replay_path:
            spec = target_spec or self.target
            lines.append(f"replay: subagent-tck fuzz --replay {self.replay_path} --target {spec}")
        return "\n".join(lines)


def words_of(setup: Setup, steps: Sequence[Step]) -> list[str]:
    """The deployment's words a reader of ``steps`` needs: the presets they name, and the
    variables when a persona is composed (a start, a prompt read, a turn's request)."""
    controls = [s.args.get("controls") for s in steps if s.op == "start"]
    presets = [c.get("preset") for c in controls if isinstance(c, dict)]
    persona = any(s.op in ("start", "prompt", "call_tool") for s in steps)
    return setup.lexicon.explain(presets, persona)


def _short(value: Any, limit: int = 600) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kit_version() -> str:
    try:
        return metadata.version("subagent-tck")
    except metadata.PackageNotFoundError:  # pragma: no cover - a bare checkout
        return "0.0.0"


def _first_exception(exc: BaseException) -> BaseException | None:
    first = next(iter(getattr(exc, "exceptions", ()) or ()), None)
    while first is not None and getattr(first, "exceptions", None):
        first = next(iter(first.exceptions), None)
    return first


def _flaky_rules(exc: Flaky) -> list[str]:
    """The rules the first run's divergence named (the observation's rules, primary first)."""
    first = _first_exception(exc)
    return list(first.finding.rules) if isinstance(first, Divergence) else []


def _first_run(exc: Flaky) -> str:
    """What the first run of the steps raised (Hypothesis keeps it in the group it raises), so
    that the error says which answer changed, not only that one did."""
    first = _first_exception(exc)
    if first is None:
        return str(exc)
    return f"first run: {type(first).__name__}: {str(first)[:500]}; then it did not recur"


def run_campaign(
    target: Target,
    *,
    budget_seconds: float | None = None,
    max_examples: int | None = None,
    seed: int | None = None,
    profile: str = "ci",
    database_dir: str | os.PathLike[str] | ExampleDatabase | None = DEFAULT_DATABASE,
    progress: Progress | None = None,
    output_dir: str | os.PathLike[str] | None = DEFAULT_OUTPUT,
    target_id: str | None = None,
    editions: Sequence[Edition] = (),
) -> CampaignResult:
    """Fuzz ``target`` until the budget is spent or a divergence is found (then shrunk, saved
    under ``output_dir`` and returned). ``None`` budgets and seed come from ``profile``;
    ``editions`` limits the deployments to those editions (default: every one it lists)."""
    chosen = PROFILES[profile]
    budget = chosen.budget_seconds if budget_seconds is None else budget_seconds
    limit = chosen.max_examples if max_examples is None else max_examples
    if seed is None:
        seed = chosen.seed if chosen.seed is not None else random.SystemRandom().randrange(2**31)
    info = target.info()
    name = target_id or info.name
    unsupported = [e.value for e in editions if e not in info.editions]
    if unsupported:
        raise TckError(ErrorCode.USAGE, f"the target does not support edition "
                       f"{', '.join(unsupported)}: it lists "
                       f"{', '.join(e.value for e in info.editions) or 'none'}")
    machine = machine_for(target, info, editions)
    stats = machine.stats
    database = open_database(database_dir, name)
    say = progress or (lambda line: None)
    cap = f"{budget:.0f}s" if budget != float("inf") else "no time cap"
    say(f"fuzz: target {name}, profile {chosen.name}, seed {seed}, budget {cap} / "
        f"{limit} examples")
    started = time.perf_counter()
    result = CampaignResult(target=name, profile=chosen.name, seed=seed)
    key = database_key(machine) if database is not None else b""
    round_number = 0
    if database is not None and _replay_saved(result, target, database, key, chosen, output_dir,
                                              name, info, say):
        limit = 0  # a divergence another campaign saved showed again: settled
    while stats.examples < limit:
        left = budget - (time.perf_counter() - started)
        if left <= 0:
            break
        # rounds of 3, 6, 12, ... 96 examples: a schedule that does not depend on
        # timing, so that a seed always runs the same examples (the budget only says where
        # to stop, between rounds)
        count = max(1, min(3 * 2 ** min(round_number, 5), limit - stats.examples))
        try:
            run_round(machine, seed * 1_000_003 + round_number, count,
                       chosen.steps_per_example, database)
        except Divergence as divergence:
            say(f"fuzz: divergence after {time.perf_counter() - started:.1f}s")
            record = settle(result, target, divergence, chosen.shrink_seconds, output_dir, name,
                            info, say)
            if database is not None:  # for every campaign sharing the database
                with contextlib.suppress(Exception):
                    database.save(key + DIVERGENCE_SUFFIX, record.model_dump_json().encode())
            break
        except Flaky as exc:
            flaky(result, exc, stats.raised)
            break
        except Unsatisfiable:
            # every example of the round met an operation the target cannot express
            # (UNSUPPORTED_OPERATION, docs/driver-api.md): what they compared stands
            break
        except TckError as exc:
            result.error = f"{exc.code.value}: {exc.message}"
            break
        round_number += 1
        elapsed = time.perf_counter() - started
        say(f"fuzz: {elapsed:.1f}s, {stats.examples} examples, {stats.steps} steps "
            f"({stats.steps / max(elapsed, 1e-9):.0f} steps/s), no divergence yet")
    result.seconds = time.perf_counter() - started
    result.examples, result.steps = stats.examples, stats.steps
    result.steps_per_second = stats.steps / result.seconds if result.seconds else 0.0
    result.operations = dict(sorted(stats.operations.items()))
    result.rules_exercised = rules_compared(result.operations)
    result.first_divergence = stats.first_divergence
    say(f"fuzz: done: {result.report().splitlines()[0]}")
    return result


def _replay_saved(
    result: CampaignResult, target: Target, database: ExampleDatabase, key: bytes,
    chosen: Profile, output_dir: str | os.PathLike[str] | None, name: str, info: TargetInfo,
    say: Progress,
) -> bool:
    """Replay the divergences other campaigns saved in the database (their steps), shortest
    first; settle the first that shows again and say True. One that no longer shows (fixed)
    is dropped from the database, as Hypothesis drops a fixed example."""
    try:
        values = list(database.fetch(key + DIVERGENCE_SUFFIX))
    except Exception:  # no saved steps to read: the search goes on without them
        return False
    records = []
    for value in values:
        try:
            records.append((ReplayFile.model_validate_json(value), value))
        except ValueError:
            continue  # written by another version of the kit
    for record, value in sorted(records, key=lambda pair: len(pair[0].steps)):
        divergence, _ = replay_steps(target, record)
        if divergence is not None:
            say("fuzz: a divergence saved in the database showed again")
            settle(result, target, divergence, chosen.shrink_seconds, output_dir, name, info,
                   say)
            return True
        with contextlib.suppress(Exception):
            database.delete(key + DIVERGENCE_SUFFIX, value)
    return False


def settle(
    result: CampaignResult, target: Target, divergence: Divergence, shrink_seconds: float,
    output_dir: str | os.PathLike[str] | None, name: str, info: TargetInfo | None,
    say: Progress,
) -> ReplayFile:
    """Shrink a divergence, check that its steps alone show it again, save its replay file
    (returned)."""
    say(f"fuzz: divergence ({divergence.finding.rule or 'crash'}, {len(divergence.steps)} "
        f"steps); shrinking for up to {shrink_seconds:.0f}s")
    shrunk, runs = shrink(target, divergence, seconds=shrink_seconds, info=info)
    say(f"fuzz: shrunk to {len(shrunk.steps)} steps in {runs} replays")
    return _found(result, target, shrunk, output_dir, name)


def flaky(result: CampaignResult, exc: Flaky, raised: Sequence[Finding] = ()) -> None:
    """Record an example whose divergence did not recur. ``raised``: the divergences the
    example's runs raised, which name its rules where Hypothesis kept no run of it (its
    re-run drew other steps: the draws follow the target's answers)."""
    result.error = f"the target answered the same steps differently ({_first_run(exc)})"
    result.unsettled = _flaky_rules(exc)
    if not result.unsettled and raised:
        result.error += f"; its runs saw: {raised[0].message[:300]}"
        result.unsettled = list(dict.fromkeys(r for finding in raised for r in finding.rules))


def run_round(
    machine: type[FuzzMachine], round_seed: int, examples: int, steps: int,
    database: ExampleDatabase | None,
    phases: Sequence[Phase] = (Phase.explicit, Phase.reuse, Phase.generate),
) -> None:
    options = settings(
        max_examples=examples,
        stateful_step_count=max(1, steps // BURST),  # steps counts operations
        deadline=None,
        database=database,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        print_blob=False,
        # no Hypothesis shrinking: the campaign shrinks the decoded steps (see .shrink)
        phases=list(phases),
    )
    # the machine's own test (not a subclass): its database key is the one HypoFuzz's
    # workers save under, so a campaign replays what they found (fuzz/hypofuzz_run.py)
    key = round_cache.round_key(machine, round_seed, examples, steps, phases, database)
    kept = None if key is None or draw_cache.mode() == "verify" else round_cache.CACHE.get(key)
    if kept is not None and round_cache.replayed(machine, kept):
        return  # the same codes Hypothesis would draw, run without drawing them
    test = state_machine_test(machine, options)
    test._hypothesis_internal_use_seed = round_seed
    # the same key, read once (machine.test_key), where Hypothesis would read and tokenize
    # its test's source at every round; None without a database
    test._hypothesis_internal_database_key = None if database is None else test_key(test)
    # the seed alone decides the steps (docs/certify.md#seeds). The steps themselves are drawn
    # as 96-byte codes, past the 50 bytes Hypothesis keeps of a literal, so no loaded module's
    # literal can stand for one; the guard keeps it so for the machine's other draws
    recording = round_cache.Recording() if key is not None else None
    machine.recording = recording
    try:
        with stable_draws():
            test()
    finally:
        machine.recording = None
    if key is not None and recording is not None:
        round_cache.keep(key, recording)


def _found(
    result: CampaignResult, target: Target, divergence: Divergence,
    output_dir: str | os.PathLike[str] | None, target_name: str,
) -> ReplayFile:
    """Record the divergence, check that its steps alone show it again, save the replay."""
    again, _ = replay_steps(target, replay_file(divergence, target_name, result.seed))
    if again is None or again.finding != divergence.finding:
        result.error = ("the target is not deterministic: replaying the counterexample showed "
                        + ("no divergence" if again is None else "another divergence"))
    result.finding = divergence.finding
    result.counterexample = divergence.steps
    setup = divergence.setup
    if setup is not None:
        result.edition, result.mode, result.tools = setup.edition, setup.mode, list(setup.tools)
        result.words = words_of(setup, divergence.steps)
    replay = replay_file(divergence, target_name, result.seed)
    if output_dir is not None:
        path = Path(output_dir) / replay_name(target_name, divergence.finding, result.seed)
        result.replay_path = str(replay.save(path))
    return replay


def replay_file(divergence: Divergence, target_name: str, seed: int | None) -> ReplayFile:
    """A divergence as a replay file (:mod:`.replay`): its set-up, steps and finding."""
    setup = divergence.setup or Setup()
    return ReplayFile(
        kit=_kit_version(), target=target_name, edition=setup.edition, mode=setup.mode,
        tools=list(setup.tools), persona=setup.persona, lexicon=setup.lexicon, seed=seed,
        steps=divergence.steps,
        finding=divergence.finding,
    )


def replay(target: Target, path: str | os.PathLike[str]) -> CampaignResult:
    """Re-execute a replay file against ``target``; ``reproduced`` says whether the same
    divergence (step, observation and primary rule) showed again."""
    recorded: ReplayFile = load_replay(path)
    started = time.perf_counter()
    divergence, ran = replay_steps(target, recorded)
    seconds = time.perf_counter() - started
    result = CampaignResult(
        target=target.info().name, profile="replay", seed=recorded.seed, examples=1, steps=ran,
        seconds=seconds, steps_per_second=ran / seconds if seconds else 0.0,
        edition=recorded.edition, mode=recorded.mode, tools=recorded.tools,
        replay_path=str(path),
    )
    if divergence is not None:
        result.finding = divergence.finding
        result.counterexample = divergence.steps
        result.words = words_of(recorded.setup(), divergence.steps)
        old, new = recorded.finding, divergence.finding
        result.reproduced = (old.step, old.observation, old.rule) == (
            new.step, new.observation, new.rule)
    else:
        result.reproduced = False
    return result
