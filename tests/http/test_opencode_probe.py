"""The real opencode (pinned in adapters/opencode/package.json) talks to the kit's streaming Chat
Completions gateway on loopback, through adapters/opencode/probe.py (docs/opencode.md).

Each run is one ``opencode run`` (9 to 14 s here): the root is scripted to start a child with
``task`` and the child to forge a ``write``. What opencode sent is read from the gateway's record:
the requests are attributed by the agent markers, the child's first request carries only the
tools its definition leaves, and the forged call is refused. The misspelt-deny run pins the
divergence the page reports (the restriction fails open), so a new opencode that fixes it shows
here. opencode is installed when it is not yet (``npm install``; it fails loudly, never skips, when
the registry cannot be reached).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from npm_install import ensure_installed

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "opencode"
PROBE = ADAPTER / "probe.py"
HIDDEN = {"write", "edit", "bash"}


def _probe(scenario: str) -> dict[str, Any]:
    # `npm ci` refuses this lock: opencode-ai's platform binaries are optional dependencies and
    # the registry here serves only linux-x64's, so the lock cannot list the others, which
    # `npm ci` wants; `npm install` installs from the same lock (docs/opencode.md)
    ensure_installed(ADAPTER, clean=False)
    result = subprocess.run([sys.executable, str(PROBE), "--scenario", scenario,
                             "--timeout", "90"], cwd=ROOT, capture_output=True, text=True,
                            timeout=150, stdin=subprocess.DEVNULL, check=False)
    assert result.returncode == 0, f"the probe failed:\n{result.stdout}\n{result.stderr}"
    found: dict[str, Any] = json.loads(result.stdout)
    print(f"opencode probe {scenario}: {found['seconds']} s")  # the figure
    assert found["exit"] == 0, f"opencode exited {found['exit']}: {found['warnings']}"
    assert found["unattributed"] == [], "a request carried no agent marker"
    return found


def test_opencodes_child_gets_its_definitions_tools_and_a_forged_call_is_refused() -> None:
    found = _probe("tools")
    root, child = found["agents"]["root"], found["agents"]["child"]
    assert {"task", *HIDDEN} <= set(root["tools"])
    assert "read" in child["tools"] and not HIDDEN & set(child["tools"])
    assert (root["persona"], child["persona"]) == ("You are the root persona.",
                                                   "You are the child persona.")
    assert "unavailable tool 'write'" in found["forged_call_result"]
    assert found["forged_file_written"] is False


def test_a_misspelt_deny_in_opencode_leaves_the_tool_callable_as_the_page_reports() -> None:
    found = _probe("misspelt")
    assert "write" in found["agents"]["child"]["tools"]
    assert found["forged_file_written"] is True
