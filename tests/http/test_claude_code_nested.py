"""Delegation from a child on the pinned Claude Code (adapters/claude-code, docs/claude-code.md
"Delegation from a child"), in one deployment: a child of the root, a child of that child (its
parent played as a link by the adapter's driver), a start under maxDepth 1 from the child
refused with DEPTH_EXCEEDED and nothing published, a start from a child whose definition leaves
Agent out answered UNSUPPORTED_OPERATION; the delegation tool is in the views that admit it, and
the frame declared for the pinned version surrounds each agent's system text exactly
(dialect.py, frames.py). Claude Code is installed as tests/http/test_claude_code_adapter.py
installs it; nothing leaves loopback."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from http_helpers import start_child
from npm_install import ensure_installed

from subagent_tck.conformance.core.dialect import unframe
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig, PresetSpec, ToolSpec
from subagent_tck.spec import ErrorCode, TckError

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "claude-code"
sys.path.insert(0, str(ADAPTER))

from claude_code_adapter import frames, install, target  # noqa: E402
from claude_code_adapter.proxy import Proxy  # noqa: E402


@pytest.fixture(scope="module")
def deployment(runtime_kit: tuple[Gateway, str]) -> Iterator[tuple[Any, Gateway]]:
    ensure_installed(ADAPTER, timeout=1800)
    claude = install.find()
    gateway, url = runtime_kit
    proxy = Proxy()
    config = DeploymentConfig(persona="ROOT-PERSONA", tools=[ToolSpec(name="read")], presets=[
        PresetSpec(name="open", persona="OPEN-PERSONA"),
        PresetSpec(name="reader", persona="READER-PERSONA", toolFilter={"allow": ["read"]})])
    dep = target.ClaudeCodeDeployment(config, url, proxy, "d1", claude=claude)
    try:
        yield dep, gateway
    finally:
        dep.close()
        proxy.close()


def test_a_child_starts_a_child_of_its_own_and_the_cap_refuses_one_past_it(
        deployment: tuple[Any, Gateway]) -> None:
    dep, gateway = deployment
    started = time.monotonic()
    child = start_child(dep, target.PROVIDER, "root", "open")
    grandchild = start_child(dep, target.PROVIDER, child.agent, "reader")
    assert (child.depth, grandchild.depth) == (1, 2)
    headers = {h.session: h for h in dep.sessions()}
    assert headers[grandchild.session].parent == child.session
    assert headers[grandchild.session].delegationDepth == 2
    # the delegation tool is judged like any tool: a child with no filter keeps it, an allow
    # list that leaves it out hides it
    assert {v.name for v in dep.view(child.agent)} == {"Agent", "read"}
    assert {v.name for v in dep.view(grandchild.agent)} == {"read"}
    # the driver's links never reach the kit: the gateway saw the two children only
    assert {e.request.agent for e in gateway.exchanges} == {child.agent, grandchild.agent}
    before = (dep.sessions(), dep.events(), len(gateway.exchanges))
    with pytest.raises(TckError) as capped:
        start_child(dep, target.PROVIDER, child.agent, "reader", maxDepth=1)
    assert capped.value.code is ErrorCode.DEPTH_EXCEEDED
    with pytest.raises(TckError) as no_tool:
        start_child(dep, target.PROVIDER, grandchild.agent, "open")
    assert no_tool.value.code is ErrorCode.UNSUPPORTED_OPERATION
    assert (dep.sessions(), dep.events(), len(gateway.exchanges)) == before
    print(f"nested starts on Claude Code: {time.monotonic() - started:.1f} s", file=sys.stderr)


def test_the_declared_frame_surrounds_each_agents_system_text_exactly(
        deployment: tuple[Any, Gateway]) -> None:
    dep, gateway = deployment
    frame = frames.frame(dep.claude)
    assert frame is not None and frame.child is not None and frame.root is not None, \
        f"no frame recorded for the pinned {dep.claude.version}: record one in frames.py"
    child = start_child(dep, target.PROVIDER, "root", "open")
    dep.run_turn("root", "hello")
    inside = unframe(frame.child, gateway.requests(child.agent)[0].system)
    assert inside is not None and inside.composed == "OPEN-PERSONA"
    inside = unframe(frame.root, gateway.requests("root")[0].system)
    assert inside is not None and inside.composed == "ROOT-PERSONA"
