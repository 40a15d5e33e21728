"""The shared roster as Claude Code agent definitions (adapters/claude-code/examples/roster/),
checked on the wire against the pinned Claude Code: the parent's scripted model calls Claude
Code's own ``Agent`` tool with each role as ``subagent_type``, and every promise is kept; a
broken definition set (generate.py ``--variant``) fails, naming its role and only the aspects it
breaks. Claude Code is installed here when it is not yet (``npm ci`` under the same lock as
tests/http/test_claude_code_adapter.py); a failed install fails the test, it never skips.
Nothing leaves loopback: every ``claude -p`` posts to the adapter's endpoint on 127.0.0.1.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest
from npm_install import ensure_installed

from subagent_tck.conformance.cli import main

pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "claude-code"
EXAMPLE = ADAPTER / "examples" / "roster"
INSTALLED = ADAPTER / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"

_spec = importlib.util.spec_from_file_location("claude_code_roster_generate_once",
                                               EXAMPLE / "generate.py")
assert _spec is not None and _spec.loader is not None
generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate)


@pytest.fixture(scope="module")
def installed() -> None:
    ensure_installed(ADAPTER, timeout=1800)
    if not INSTALLED.is_file():
        pytest.fail(f"`npm ci` in adapters/claude-code left no {INSTALLED.name}: retry "
                    "`cd adapters/claude-code && npm ci`")


def _run(capsys: pytest.CaptureFixture[str], agents: Path, file: Path,
         *only: str) -> tuple[int, str]:
    target = f"cmd:{sys.executable} {ADAPTER / 'server.py'} --agents-dir {agents}"
    code = main(["promises", "--target", target, str(file),
                 *(a for role in only for a in ("--only", role))])
    return code, capsys.readouterr().out


def test_the_claude_code_roster_keeps_every_promise_on_the_wire(
        installed: None, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code, out = _run(capsys, EXAMPLE / "agents", EXAMPLE / "promises.toml")
    assert code == 0 and "all promises kept: 12 promise(s), 82 item(s): 82 kept" in out, out
    assert "reviewer-strict/tools: the child saw ['glob', 'grep', 'read']" in out
    assert "batch-classifier/tools: the child saw []" in out
    assert "planner/model: every child request asked for 'claude-opus-4-8'" in out
    assert "researcher/refuses:delegation: the child's 'Agent' call was refused" in out
    print(f"claude code roster: {time.monotonic() - started:.1f} s", file=sys.stderr)


@pytest.mark.parametrize("variant", ["review_gets_write", "persona_leaks", "delegates_again",
                                     "tier_dropped"])
def test_a_broken_claude_code_definition_fails_naming_its_role(
        variant: str, installed: None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each variant changes one role's definition only (test_claude_code_roster.py), so that
    role's promise is checked here, with a faithful neighbour to show the rest still holds."""
    _, role, aspects = generate.VARIANTS[variant]
    generate.write(tmp_path, variant)
    neighbour = "implementer"
    code, out = _run(capsys, tmp_path / "agents", tmp_path / "promises.toml", role, neighbour)
    failed = {line.split()[1].rstrip(":") for line in out.splitlines()
              if line.startswith(("BROKEN", "ERROR"))}
    assert code == 1 and failed == {f"{role}/{aspect}" for aspect in aspects}, out
