"""The same seed gives the same certificate whatever ``--jobs`` is (docs/certify.md#jobs): the
built-in reference, and a zoo entry that breaks a rule, so that the failures of the fixed cases
and of the campaign's shards, their examples and their replays are compared too. (The JavaScript
implementation: tests/http/test_parallel_javascript.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from parallel_helpers import same_whatever_the_jobs

from subagent_tck.conformance.core.certificate import Verdict

ROOT = Path(__file__).resolve().parents[1]


def test_the_reference_certifies_the_same_with_one_job_or_two(tmp_path: Path) -> None:
    cert = same_whatever_the_jobs("reference", seed=3, out=tmp_path)
    assert cert.verdict == Verdict.CERTIFIED


def test_a_broken_target_fails_the_same_with_one_job_or_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(ROOT))  # examples.providers, here and in the workers
    cert = same_whatever_the_jobs("python:examples.providers.case_insensitive_allow:provider",
                                  seed=0, out=tmp_path)
    failures = [f for r in cert.rules for f in r.failures]
    assert cert.verdict == Verdict.FAILED
    assert {f.check for f in failures if f.rule == "TF-01"} >= {"fuzz-campaign"}
    assert all(f.replay for f in failures if f.check == "fuzz-campaign")
