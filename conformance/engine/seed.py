"""The seed policy of ``certify`` (docs/certify.md#seeds).

A run of the command line without ``--seed`` draws a fresh seed and prints it: the header of
every report carries ``seed N``, and the text summary prints the command that replays the whole
run. A target that is right only for the names, sizes and spellings one seed draws then fails
under another run's seed, while every run stays reproducible from the seed it printed. The
library API (:class:`~.runner.RunConfig`) keeps seed 0 unless told otherwise.
"""

from __future__ import annotations

import hashlib
import secrets
import shlex

from subagent_tck.spec import DEFAULT_EDITION

from ..core.certificate import Certificate

#: Fresh seeds are drawn below this bound: short enough to read aloud and type.
SEED_SPACE = 2**32


def fresh_seed() -> int:
    """A seed drawn from the operating system's randomness (never from a seeded generator)."""
    return secrets.randbelow(SEED_SPACE)


def derived(seed: int, *parts: str | int) -> int:
    """A seed of its own for one part of a run (a campaign shard), drawn from the run's
    ``seed`` and the part's names alone: never from how many run at once or which finished
    first, so that a seed gives the same certificate whatever ``--jobs`` is
    (docs/certify.md#jobs)."""
    text = ":".join(str(part) for part in (seed, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") % SEED_SPACE


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
