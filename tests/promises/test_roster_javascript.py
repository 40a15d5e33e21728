"""The JavaScript implementation's roster (examples/roster/js/server.mjs, started as a cmd:
target): the same promises file passes, and each broken variant fails naming its role."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from examples.roster import broken
from subagent_tck.conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
FILE = str(ROOT / "examples" / "roster" / "promises.toml")
SERVER = ROOT / "examples" / "roster" / "js" / "server.mjs"



def _run(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    if shutil.which("node") is None:  # part of the CI machine: a missing node fails, loudly
        pytest.fail("`node` is not on PATH: install Node.js 20 (e.g. `apt-get install nodejs "
                    "npm`) to run the JavaScript roster")
    code = main(["promises", "--target", f"cmd:node {SERVER} {' '.join(flags)}".strip(), FILE])
    return code, capsys.readouterr().out


def test_the_javascript_roster_keeps_every_promise(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys)
    assert code == 0 and "all promises kept: 12 promise(s), 70 item(s): 70 kept" in out


@pytest.mark.parametrize("variant", sorted(broken.VARIANTS))
def test_a_broken_javascript_roster_fails_naming_the_role(
    variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    role, aspects = broken.VARIANTS[variant]
    code, out = _run(capsys, "--variant", variant)
    failed = {line.split()[1].rstrip(":") for line in out.splitlines()
              if line.startswith(("BROKEN", "ERROR"))}
    assert code == 1 and failed == {f"{role}/{aspect}" for aspect in aspects}
