"""The profiles of a certification: how hard a run searches (docs/certify.md#profiles).

The one registry of them: the runner sizes a run by it, and the command line's ``--profile``
and the pytest plugin's ``--subagent-tck-profile`` take their choices and their help from it
(docs/architecture.md#one-home-per-concept). The fuzz campaign's own profiles (``subagent-tck
fuzz --profile ci|nightly``) size a stand-alone campaign, not a certification.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """How hard a run searches: Hypothesis ``max_examples`` per property, and the generated
    fuzz campaign every whole run adds (docs/certify.md#profiles).

    The campaign's budget is counted in deployments (``fuzz_examples``, each up to 60 driver
    operations), not seconds, so that a seed runs the same steps on a fast laptop and on a
    loaded CI runner and finds the same things; ``fuzz_seconds`` (``--fuzz-budget``) is a
    wall-clock cap on top, which in ``ci`` binds only for a slow target (a driver over HTTP:
    the certificate's note then says the campaign was cut by time), not for an in-process one.
    """

    name: str
    max_examples: int
    #: deployments the fuzz campaign runs (rounds of 3, 6, 12, ... 96)
    fuzz_examples: int = 0
    #: a wall-clock cap on the campaign's search (None: the examples alone decide)
    fuzz_seconds: float | None = None


PROFILES: Mapping[str, Profile] = {
    # ~20,000 operations: about 8 s against the in-process reference on 2 shared cores; the
    # cap keeps a target behind HTTP (a few hundred operations per second) within a minute
    "ci": Profile("ci", 10, fuzz_examples=381, fuzz_seconds=25.0),
    # 60 s of fuzzing (--fuzz-budget), with no practical cap on deployments
    "thorough": Profile("thorough", 200, fuzz_examples=1_000_000, fuzz_seconds=60.0),
}

DEFAULT = "ci"


def profile_help() -> str:
    """What each profile does, for the help of an option that chooses one."""
    return "; ".join(
        f"{p.name}: {p.max_examples} examples per property"
        + (f", {p.fuzz_examples:,} fuzzed deployments" if p.fuzz_examples > 0 else "")
        for p in PROFILES.values())
