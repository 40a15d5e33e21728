"""The JavaScript implementation certifies the same with one job or two (docs/certify.md#jobs):
each worker process starts its own ``node implementations/javascript/server.mjs``. In the
``request-controls`` edition: tests/http/test_http_javascript.py certifies the default one from
the command line, so the two runs here are the implementation's certification in this one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from parallel_helpers import same_whatever_the_jobs

from subagent_tck.conformance.core.certificate import Verdict
from subagent_tck.spec import Edition

ROOT = Path(__file__).resolve().parents[2]


def test_the_javascript_implementation_certifies_the_same_with_one_job_or_two(
    tmp_path: Path,
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("`node` is not on PATH: install Node.js 20 to run the JavaScript "
                    "implementation")
    server = ROOT / "implementations" / "javascript" / "server.mjs"
    cert = same_whatever_the_jobs(f"cmd:{node} {server}", seed=11, out=tmp_path,
                                  edition=Edition.REQUEST_CONTROLS)
    assert cert.edition is Edition.REQUEST_CONTROLS
    assert cert.verdict == Verdict.CERTIFIED, [
        (r.id, [p.outcome.value for p in r.providers]) for r in cert.rules]
