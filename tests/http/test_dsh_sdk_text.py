"""The DSH adapter's node tests, run with the Node 22 that ``npm ci`` installs in adapters/dsh
(installed here when it is not yet): it reads code mode's run_code SDK bindings from the SDK
text DSH sends the model (adapters/dsh/src/sdk_text.mjs, against DSH's own SDK renderer), and
it keeps DSH's session stores in RAM where there is room (adapters/dsh/src/store_dir.mjs), and a
closed deployment leaves no connection to the kit's model gateway open (src/dsh_host.mjs)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from npm_install import ensure_installed

ADAPTER = Path(__file__).resolve().parents[2] / "adapters" / "dsh"
NODE22 = ADAPTER / "node_modules" / "node" / "bin" / "node"


def _node_tests(file: str, passing: int) -> None:
    """Run one of the adapter's node test files with its Node 22: every test passes."""
    ensure_installed(ADAPTER, timeout=600)
    result = subprocess.run([str(NODE22), "--test", f"test/{file}"], cwd=ADAPTER,
                            capture_output=True, text=True, timeout=120,
                            stdin=subprocess.DEVNULL, check=False)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and f"# pass {passing}" in result.stdout, (
        result.stdout[-2000:])


def test_the_sdk_text_reader_round_trips_every_name_dsh_renders() -> None:
    _node_tests("sdk_text.test.mjs", 4)


def test_the_session_stores_go_to_ram_with_room_else_where_tmpdir_says() -> None:
    _node_tests("store_dir.test.mjs", 3)


def test_a_closed_deployment_leaves_no_connection_to_the_gateway_open() -> None:
    _node_tests("close_gateway.test.mjs", 2)
