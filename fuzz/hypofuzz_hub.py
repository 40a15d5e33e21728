"""``python -m subagent_tck.fuzz.hypofuzz_hub WORKERS RUN``: HypoFuzz's hub, fuzzing the
campaign test of ``RUN/test_subagent_tck_fuzz.py`` with WORKERS processes (docs/fuzz.md#hypofuzz).

:mod:`.hypofuzz_run` starts it as a process family of its own and stops it; the hub never
collects the test itself (its workers do, each loading its own target: see
:mod:`.hypofuzz_target`), so it starts no adapter. The workers are spawned, not forked.
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

#: The environment a worker reads (fuzz/hypofuzz_target.py).
TARGET_VARIABLE = "SUBAGENT_TCK_FUZZ_TARGET"
DATABASE_VARIABLE = "SUBAGENT_TCK_FUZZ_DATABASE"
EDITIONS_VARIABLE = "SUBAGENT_TCK_FUZZ_EDITIONS"
STEPS_VARIABLE = "SUBAGENT_TCK_FUZZ_STEPS"
RUN_VARIABLE = "SUBAGENT_TCK_FUZZ_RUN"
#: The shim test module in the run directory, and the test's pytest node id there.
SHIM = "test_subagent_tck_fuzz.py"
NODEID = f"{SHIM}::TestFuzzCampaign::runTest"
SHIM_TEXT = "from subagent_tck.fuzz.hypofuzz_target import TestFuzzCampaign  # noqa: F401\n"


def pytest_args(run: Path) -> list[str]:
    """What each worker's pytest collects: the shim alone, with the run directory as its
    rootdir and an empty configuration (the user's pytest settings and plugins stay out)."""
    return ["-c", str(run / "pytest.ini"), "--rootdir", str(run), "-p", "no:cacheprovider",
            "-p", "no:subagent_tck", "-q", str(run / SHIM)]


def prepare(run: Path) -> None:
    """Write the shim and the empty pytest configuration into ``run``."""
    (run / SHIM).write_text(SHIM_TEXT, encoding="utf-8")
    (run / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    from hypofuzz import detection
    from hypofuzz.hypofuzz import FuzzWorkerHub

    workers, run = int(argv[0]), Path(argv[1])
    detection._in_hypofuzz_run = True  # what `hypothesis fuzz` sets before it starts a hub
    multiprocessing.set_start_method("spawn")
    FuzzWorkerHub(nodeids=[NODEID], pytest_args=pytest_args(run), n_processes=workers).start()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
