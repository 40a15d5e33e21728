"""The seed policy of certify (docs/certify.md#seeds): a run without --seed draws a fresh seed
and prints it with the command that replays the run; --seed N uses N everywhere."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from subagent_tck.conformance.cli import main
from subagent_tck.conformance.engine.seed import SEED_SPACE, fresh_seed

HEADER = re.compile(r"seed (\d+), catalogue")
REPLAY = re.compile(r"replay this run: (.+)")


def certify(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["certify", "--target", "reference", "--rule", "TF-07", *extra])
    return code, capsys.readouterr().out


def printed(out: str) -> tuple[int, str]:
    header, replay = HEADER.search(out), REPLAY.search(out)
    assert header and replay, out
    return int(header.group(1)), replay.group(1).strip()


def test_fresh_seeds_are_drawn_from_the_whole_seed_space() -> None:
    seeds = {fresh_seed() for _ in range(64)}
    assert len(seeds) > 60 and all(0 <= s < SEED_SPACE for s in seeds)


def test_a_run_without_a_seed_prints_a_fresh_seed_and_the_command_that_replays_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, first = certify(capsys)
    _, second = certify(capsys)
    (seed1, replay1), (seed2, _) = printed(first), printed(second)
    assert seed1 != seed2, "two runs without --seed used the same seed"
    argv = shlex.split(replay1)
    assert argv[:2] == ["subagent-tck", "certify"] and argv[argv.index("--seed") + 1] == str(seed1)
    assert argv[argv.index("--rule") + 1] == "TF-07"
    _, again = certify(capsys, "--seed", str(seed1))
    assert printed(again) == (seed1, replay1)


def test_a_given_seed_is_the_seed_of_the_certificate_and_of_every_replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    out_file = tmp_path / "cert.json"
    _, out = certify(capsys, "--seed", "4242", "--format", "json", "--output", str(out_file))
    cert = json.loads(out_file.read_text(encoding="utf-8"))
    assert cert["seed"] == 4242 and printed(out)[0] == 4242
    assert all("--seed 4242" in r["replay"] for r in cert["rules"] if r.get("replay"))
