"""The seed policy of ``certify`` (docs/certify.md#seeds).

A run of the command line without ``--seed`` draws a fresh seed and prints it: the header of
every report carries ``seed N``, and the text summary prints the command that replays the whole
run. A target that is right only for the names, sizes and spellings one seed draws then fails
under another run's seed, while every run stays reproducible from the seed it printed. The
library API (:class:`~.runner.RunConfig`) keeps seed 0 unless told otherwise.
"""

from __future__ import annotations

import secrets
import shlex

from subagent_tck.spec import DEFAULT_EDITION

from ..core.certificate import Certificate

#: Fresh seeds are drawn below this bound: short enough to read aloud and type.
SEED_SPACE = 2**32


def fresh_seed() -> int:
    """A seed drawn from the operating system's randomness (never from a seeded generator)."""
    return secrets.randbelow(SEED_SPACE)


def run_replay(cert: Certificate) -> str:
    """The command that reruns ``cert``'s run with the same seed (and rule selection)."""
    parts = ["subagent-tck", "certify", "--target", cert.target.spec, "--seed", str(cert.seed)]
    if cert.edition != DEFAULT_EDITION:
        parts += ["--edition", cert.edition.value]
    if cert.profile != "ci":
        parts += ["--profile", cert.profile]
    for rule in cert.selected_rules or ():
        parts += ["--rule", rule]
    for provider in cert.selected_providers or ():
        parts += ["--provider", provider]
    if cert.promises is not None:
        parts += ["--promises", cert.promises.file]
    return shlex.join(parts)
