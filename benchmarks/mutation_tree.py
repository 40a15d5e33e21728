"""reference/ under benchmarks/mutation.py: a mutant written over its file, and the tree restored.

A mutant is written over its file in place for one certify (:func:`applied`); whatever happens
(an error, Ctrl-C, SIGTERM) every file of reference/ is put back from a snapshot of its bytes
and compared with them, one run at a time per checkout, never over uncommitted changes, and no
stale bytecode stands in for a mutated source. See benchmarks/README.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from mutation_mutants import REFERENCE, ROOT, Mutant, SetupError


@contextlib.contextmanager
def applied(mutant: Mutant) -> Iterator[str]:
    """``mutant`` written over its file for the with-block (cosmic-ray's use_mutation); yields
    the unified diff."""
    import difflib

    import cosmic_ray.plugins
    from cosmic_ray.mutating import use_mutation

    operator = cosmic_ray.plugins.get_operator(mutant.operator)()
    path = ROOT / mutant.module
    with use_mutation(path, operator, mutant.occurrence) as (before, after):
        if after is None:
            raise SetupError(f"cosmic-ray made no mutant {mutant.id}: the code changed since "
                             "the list was made")
        diff = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                            f"a/{mutant.module}", f"b/{mutant.module}", n=0))
        yield diff


# -- safety: the tree is restored whatever happens -----------------------------------------------

class Snapshot:
    """The bytes of every file of reference/, put back and verified on exit."""

    def __init__(self) -> None:
        self.files = {p: p.read_bytes() for p in sorted(REFERENCE.rglob("*.py"))}

    def restore(self) -> list[str]:
        changed = []
        for path, data in self.files.items():
            if path.read_bytes() != data:
                changed.append(str(path.relative_to(ROOT)))
                path.write_bytes(data)
        return changed


def require_clean_tree() -> None:
    try:
        status = subprocess.run(["git", "status", "--porcelain", "--", "reference"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return  # not a git checkout: the snapshot still restores every file
    if status.strip():
        raise SetupError("reference/ has uncommitted changes; mutants are written over its "
                         "files in place, so commit or stash them first:\n" + status)


@contextlib.contextmanager
def exclusive() -> Iterator[None]:
    """One run at a time per checkout: two would write mutants over each other."""
    lock = Path(tempfile.gettempdir()) / (
        "tck-mutation-" + hashlib.sha256(str(ROOT).encode()).hexdigest()[:12] + ".lock")
    with lock.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SetupError(f"another mutation run holds {lock} for {ROOT}; wait for it or "
                             "stop it (it restores reference/ when it ends)") from None
        yield


def drop_bytecode() -> None:
    """No stale .pyc of reference/ may stand in for a mutated source of the same size."""
    for cache in REFERENCE.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
