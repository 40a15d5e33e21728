"""The parts of a ``certify`` run that the command line and the pytest plugin build alike
(docs/certify.md): the suite a profile runs, the recipe a worker process of ``--jobs N`` makes
the run again from, and the number of jobs."""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from subagent_tck.spec import ErrorCode, TckError

from .engine.profiles import PROFILES

if TYPE_CHECKING:
    from .engine.runner import Recipe, Suite

#: The fuzz campaign that every whole run of a profile adds to a certification.
FUZZ_CHECK = "subagent_tck.fuzz.campaign_check"


def suite_for(target_spec: str, profile: str, *, fuzz_budget: float | None = None,
              fuzz_output_dir: str | None = None, progress: Callable[[str], None] | None = None,
              options: tuple[str, str, str] = ("--profile", "--fuzz-budget",
                                               "--fuzz-output-dir"),
              rules: Sequence[str] = ()) -> Suite | None:
    """The suite a profile runs: the default suite plus the generated fuzz campaign against
    ``target_spec``, sized by the profile (``profiles.PROFILES``: deployments, and a wall cap
    that ``fuzz_budget`` overrides). Fuzz is imported only here: nothing else of conformance
    imports it. A partial ``ci`` run (``rules`` given: the replay of a fixed case) runs no
    campaign, so that it stays quick and shows that case alone; None then (the default
    suite). Shared by the command line and the pytest plugin; their options for profile, fuzz
    budget and fuzz output directory are ``options``, named so in the usage errors."""
    from .engine.runner import Suite

    profile_option, *names = options
    fuzz_options = [o for o, v in zip(names, (fuzz_budget, fuzz_output_dir), strict=True)
                    if v is not None]
    chosen = PROFILES.get(profile)
    if chosen is None or chosen.fuzz_examples <= 0 or (rules and profile == "ci"
                                                       and not fuzz_options):
        return None
    if not available(FUZZ_CHECK):
        raise TckError(ErrorCode.USAGE, f"{profile_option} {profile} fuzzes the target, but "
                       f"{FUZZ_CHECK} is not installed: reinstall subagent-tck")
    from subagent_tck.fuzz.campaign import DEFAULT_OUTPUT
    from subagent_tck.fuzz.campaign_check import campaign_check

    check = campaign_check(
        target_spec, budget_seconds=fuzz_budget or chosen.fuzz_seconds,
        max_examples=chosen.fuzz_examples, output_dir=fuzz_output_dir or DEFAULT_OUTPUT,
        progress=progress, profile=chosen.name,
    )
    default = Suite.default()
    return Suite(default.rules, {**default.checks, check.name: check})


def recipe_for(target_spec: str, profile: str, *, wait: float | None = None,
               fuzz_budget: float | None = None, fuzz_output_dir: str | None = None,
               options: tuple[str, str, str] = ("--profile", "--fuzz-budget",
                                                "--fuzz-output-dir"),
               rules: Sequence[str] = ()) -> Recipe:
    """How a worker process of ``--jobs N`` makes the run's target and suite again
    (docs/certify.md#jobs): :func:`load_target` and :func:`suite_for` with the run's options,
    without progress lines (a worker is no terminal). Shared by the command line and the
    pytest plugin."""
    from .engine.runner import Recipe
    from .transports.targets import load_target

    return Recipe(
        target=functools.partial(load_target, target_spec, wait=wait),
        suite=functools.partial(suite_for, target_spec, profile, fuzz_budget=fuzz_budget,
                                fuzz_output_dir=fuzz_output_dir, options=options,
                                rules=tuple(rules)),
    )


#: The environment variable that sets ``--jobs`` when the option is not given.
JOBS_VARIABLE = "SUBAGENT_TCK_JOBS"


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def default_jobs() -> int:
    """``--jobs`` when none is given: ``SUBAGENT_TCK_JOBS``, else the number of cores; a bad
    value of the variable is a usage error naming it."""
    raw = os.environ.get(JOBS_VARIABLE, "").strip()
    if not raw:
        return cores()
    try:
        return jobs(raw)
    except argparse.ArgumentTypeError as exc:
        raise TckError(ErrorCode.USAGE, f"{JOBS_VARIABLE}={raw[:40]!r}: {exc}") from None


def jobs(text: str) -> int:
    """A number of check runs at once (argparse type): a whole number from 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give 1 or more (1: one check run at a "
                                         "time)")
    return value


def available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
