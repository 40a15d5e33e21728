"""Delegation from a child on the pinned opencode (adapters/opencode, docs/opencode.md
"Delegation from a child"), in one deployment: at the default subagent_depth (1) a child's own
task call is refused (DEPTH_EXCEEDED), under maxDepth 2 it starts a grandchild (its parent
played as a link by the adapter's driver), a depth opencode's configuration refuses is
INVALID_DEPTH and the configuration taken back, and nothing of a refused start is published;
the declared frame surrounds the child's system text exactly. opencode is installed as
tests/http/test_opencode_adapter.py installs it; nothing leaves loopback."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from http_helpers import start_child
from npm_install import ensure_installed

from subagent_tck.conformance.core.dialect import unframe
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig, PresetSpec, ToolSpec
from subagent_tck.spec import ErrorCode, TckError

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "opencode"
sys.path.insert(0, str(ADAPTER))

from opencode_adapter import dialect, target  # noqa: E402


class _Gateway:
    """The gateway as the adapter reaches it: over HTTP, at ``base_url``."""

    def __init__(self, url: str) -> None:
        self.base_url = url


def test_a_child_delegates_only_under_a_depth_that_admits_it(
        runtime_kit: tuple[Gateway, str]) -> None:
    ensure_installed(ADAPTER, timeout=1800, clean=False)
    gateway, url = runtime_kit
    opencode = target.OpencodeTarget()
    config = DeploymentConfig(tools=[ToolSpec(name="read")], presets=[
        PresetSpec(name="lead", persona="LEAD-PERSONA", toolFilter={"allow": ["read", "task"]}),
        PresetSpec(name="reader", persona="READER-PERSONA", toolFilter={"allow": ["read"]})])
    dep = opencode.deploy(config, _Gateway(url))
    started = time.monotonic()
    try:
        child = start_child(dep, "task", "root", "lead")
        assert {v.name for v in dep.view(child.agent)} == {"read", "task"}
        inside = unframe(dialect.FRAME.child, gateway.requests(child.agent)[0].system)
        assert inside is not None and inside.composed == "LEAD-PERSONA"
        before = (dep.sessions(), dep.events())
        for controls, code in (({}, ErrorCode.DEPTH_EXCEEDED),
                               ({"maxDepth": "2"}, ErrorCode.INVALID_DEPTH)):
            with pytest.raises(TckError) as refused:
                start_child(dep, "task", child.agent, "reader", **controls)
            assert refused.value.code is code
        assert (dep.sessions(), dep.events()) == before
        grandchild = start_child(dep, "task", child.agent, "reader", maxDepth=2)
        assert grandchild.depth == 2
        assert {v.name for v in dep.view(grandchild.agent)} == {"read"}
    finally:
        dep.close()
        opencode.close()
    print(f"nested starts on opencode: {time.monotonic() - started:.1f} s", file=sys.stderr)
