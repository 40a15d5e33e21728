"""The seed's roster as a DSH plugin (adapters/dsh/examples/roster/), loaded by the adapter with
``--provider-module``: the promises file passes on the real DSH, and each broken variant fails
naming its role. Like tests/http/test_dsh_adapter.py, the adapter is installed here when it is
not yet (``npm ci``, under the same lock) and a failed install fails the test; it never skips.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from npm_install import ensure_installed

from examples.roster import broken
from examples.roster.roster import ROLES, Roster
from subagent_tck.conformance.cli import main
from subagent_tck.conformance.core import promises_file as pf

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "dsh"
SHARED = ROOT / "examples" / "roster" / "promises.toml"
#: the shared file with each role's tier model: DSH's children report their model
FILE = str(ADAPTER / "examples" / "roster" / "promises.toml")
PLUGIN = ADAPTER / "examples" / "roster" / "index.mjs"


@pytest.fixture(scope="module")
def node() -> str:
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.fail("`node` and `npm` must be on PATH (Node.js 20 or later), then "
                    "`cd adapters/dsh && npm ci`")
    ensure_installed(ADAPTER)
    return node


def _run(capsys: pytest.CaptureFixture[str], node: str, variant: str = "") -> tuple[int, str]:
    env = f"env SUBAGENT_TCK_ROSTER_VARIANT={variant} " if variant else ""
    target = f"cmd:{env}{node} {ADAPTER / 'server.mjs'} --provider-module {PLUGIN}"
    code = main(["promises", "--target", target, FILE])
    return code, capsys.readouterr().out


def test_the_dsh_roster_keeps_every_promise(node: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, node)
    assert code == 0 and "all promises kept: 12 promise(s), 82 item(s): 82 kept" in out, out
    assert "planner/model: every child request asked for 'large'" in out


@pytest.mark.parametrize("variant", sorted(broken.VARIANTS))
def test_a_broken_dsh_roster_fails_naming_the_role(
    variant: str, node: str, capsys: pytest.CaptureFixture[str]
) -> None:
    role, aspects = broken.VARIANTS[variant]
    code, out = _run(capsys, node, variant)
    failed = {line.split()[1].rstrip(":") for line in out.splitlines()
              if line.startswith(("BROKEN", "ERROR"))}
    assert code == 1 and failed == {f"{role}/{aspect}" for aspect in aspects}, out


def test_the_dsh_promises_are_the_shared_ones_with_each_roles_tier_model() -> None:
    shared, dsh = pf.load(SHARED), pf.load(FILE)
    tiers = Roster().tiers
    assert dsh.deployment == shared.deployment
    assert [p.model_copy(update={"model": None}) for p in dsh.promise] == shared.promise
    assert {p.id: p.model for p in dsh.promise} == {r.id: tiers[r.tier]["model"] for r in ROLES}


def test_certify_with_the_dsh_roster_loaded_judges_the_rules_beside_its_promises(
    node: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The roster's own ``delegate`` is named and left out of what the rules judge
    (docs/certify.md#tools-the-target-brings): the rules it used to break pass with it loaded."""
    target = f"cmd:{node} {ADAPTER / 'server.mjs'} --provider-module {PLUGIN}"
    report = tmp_path / "c.json"
    code = main(["certify", "--target", target, "--edition", "request-controls",
                 "--rule", "FR-01", "--rule", "FR-05", "--rule", "EN-03", "--rule", "TF-12",
                 # a fixed seed (a CI gate is the same run each time) and room for DSH under a
                 # loaded CI machine: at some seeds a check of these makes 10+ DSH starts
                 "--seed", "0", "--timeout", "180",
                 "--promises", FILE, "--report", f"json={report}"])
    capsys.readouterr()
    cert = json.loads(report.read_text("utf-8"))
    assert cert["target_tools"] == ["delegate"]
    assert code == 0 and cert["verdict"] == "PASSED", [
        (r["id"], r["outcome"]) for r in cert["rules"] if r["outcome"] not in ("pass", "not-run")]
    assert len(cert["promises"]["items"]) == 82
    assert {i["status"] for i in cert["promises"]["items"]} == {"kept"}
