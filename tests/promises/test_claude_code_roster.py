"""The shared roster as Claude Code agent definitions (adapters/claude-code/examples/roster/):
the committed files are what generate.py makes from examples/roster/roster.json, the promises
are the shared ones triggered through Claude Code's Agent tool, a broken variant changes one
role only, and the adapter's ``--agents-dir`` reads definitions back or refuses them naming the
file. Fast: no Claude Code runs (tests/promises/test_roster_claude_code.py runs them)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core import promises_file as pf
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker, find_marker
from subagent_tck.spec import ErrorCode, TckError

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "claude-code"
EXAMPLE = ADAPTER / "examples" / "roster"
sys.path.insert(0, str(ADAPTER))

from claude_code_adapter import agents_dir  # noqa: E402


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


generate = _load(EXAMPLE / "generate.py", "claude_code_roster_generate")
SHARED = pf.load(str(ROOT / "examples" / "roster" / "promises.toml"))


def _front(text: str) -> tuple[dict[str, Any], str]:
    """A definition's front matter (each value as JSON where it is JSON) and body."""
    match = re.match(r"---\n(.*?)\n---\n(.*)\Z", text, re.S)
    assert match, text
    fields: dict[str, Any] = {}
    for line in match.group(1).splitlines():
        key, _, value = line.partition(": ")
        try:
            fields[key] = json.loads(value)
        except ValueError:
            fields[key] = value
    return fields, match.group(2)


def test_the_committed_definitions_and_promises_are_what_the_roster_generates() -> None:
    assert generate.stale(EXAMPLE) == []
    check = subprocess.run([sys.executable, str(EXAMPLE / "generate.py"), "--check"],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr


def test_a_stale_definition_is_named_by_the_check(tmp_path: Path) -> None:
    generate.write(tmp_path)
    (tmp_path / "agents" / "planner.md").write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / "agents" / "extra.md").write_text("---\nname: extra\n---\n", encoding="utf-8")
    assert generate.stale(tmp_path) == ["agents/extra.md", "agents/planner.md"]
    assert generate.main(["--check", "--out", str(tmp_path)]) == 1


def test_each_role_is_a_definition_with_its_persona_claude_code_tool_names_and_model() -> None:
    data = generate.roster()
    for role in data["roles"]:
        fields, body = _front((EXAMPLE / "agents" / f"{role['id']}.md").read_text("utf-8"))
        assert fields["name"] == role["id"]
        granted = data["capabilities"][role["capability"]]
        assert fields["tools"] == [f"mcp__tck__{t}" for t in granted]
        assert fields["model"] == generate.MODELS[data["tiers"][role["tier"]]["model"]]
        assert body.strip() == role["prompt"]


def test_the_claude_code_promises_are_the_shared_ones_triggered_through_agent() -> None:
    mine = pf.load(str(EXAMPLE / "promises.toml"))
    assert mine.deployment.persona == SHARED.deployment.persona
    assert mine.deployment.tools == SHARED.deployment.tools
    assert mine.deployment.plugin_tools == ["Agent"]
    assert mine.deployment.edition == "preset-composition"
    data = generate.roster()
    tiers = {r["id"]: generate.MODELS[data["tiers"][r["tier"]]["model"]] for r in data["roles"]}
    for ours, shared in zip(mine.promise, SHARED.promise, strict=True):
        assert ours.trigger.tool == "Agent"
        assert ours.trigger.arguments["subagent_type"] == ours.id == shared.id
        assert set(ours.trigger.arguments) == {"subagent_type", "description", "prompt"}
        assert ours.model == tiers[ours.id]
        assert ours.model_copy(update={"trigger": shared.trigger, "model": None}) == shared


@pytest.mark.parametrize("variant", sorted(generate.VARIANTS))
def test_a_broken_variant_changes_the_definition_of_its_role_only(variant: str) -> None:
    _, role, aspects = generate.VARIANTS[variant]
    faithful, broken = generate.files(generate.roster()), generate.files(generate.roster(), variant)
    changed = sorted(name for name in faithful if faithful[name] != broken[name])
    assert changed == [f"agents/{role}.md"] and aspects


NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True)
PROSE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
                max_size=80).map(str.strip).filter(bool)


@st.composite
def rosters(draw: st.DrawFn) -> dict[str, Any]:
    tools = draw(st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
        lambda n: n not in ("run_code", "structured_output")), max_size=6, unique=True))
    ids = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    return {
        "capabilities": {f"cap{i}": draw(st.lists(st.sampled_from(tools), unique=True))
                         if tools else [] for i in range(len(ids))},
        "tiers": {"t": {"model": draw(st.sampled_from(sorted(generate.MODELS)))}},
        "roles": [{"id": role, "kind": "build", "capability": f"cap{i}", "tier": "t",
                   "prompt": draw(PROSE)} for i, role in enumerate(ids)],
    }


@settings(max_examples=25, deadline=None)
@given(data=rosters())
def test_any_roster_generates_definitions_the_adapter_reads_back_and_marks(
        data: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> None:
    out = tmp_path_factory.mktemp("roster")
    generate.write(out, data=data)
    definitions = agents_dir.load(out / "agents")
    assert sorted(d.name for d in definitions) == sorted(r["id"] for r in data["roles"])
    for role in data["roles"]:
        definition = next(d for d in definitions if d.name == role["id"])
        fields, body = _front(definition.text)
        granted = data["capabilities"][role["capability"]]
        assert fields["tools"] == [f"mcp__tck__{t}" for t in granted]
        assert body.strip() == role["prompt"]
        marked = definition.with_marker()
        agent, system, _ = find_marker(marked)
        assert agent == f"agent:{role['id']}" and marked.startswith(definition.text.rstrip("\n"))
        assert agent_marker(agent) not in system
    assert pf.load(str(out / "promises.toml")).promise[0].id == data["roles"][0]["id"]


def test_install_writes_each_definition_marked_under_its_own_file_name(tmp_path: Path) -> None:
    source, agents = tmp_path / "src", tmp_path / "agents"
    source.mkdir()
    agents.mkdir()
    (source / "reviewer.md").write_text("---\nname: code-reviewer\ntools: Read\n---\nReview.\n",
                                        encoding="utf-8")
    agents_dir.install(agents_dir.load(source), agents)
    assert (agents / "reviewer.md").read_text("utf-8") == (
        "---\nname: code-reviewer\ntools: Read\n---\nReview.\n\n"
        "[subagent-tck agent=agent%3Acode-reviewer]\n")


@pytest.mark.parametrize(("files", "says"), [
    ({"a.md": "no front matter\n"}, "a.md: not a Claude Code agent definition"),
    ({"a.md": "---\ndescription: x\n---\nbody\n"}, "must open with front matter"),
    ({"a.md": "---\nname: x\n---\n", "b.md": "---\nname: 'x'\n---\n"},
     "b.md: the name 'x' is also defined by"),
    ({}, "holds no *.md agent definition"),
])
def test_a_directory_the_adapter_cannot_read_is_refused_naming_the_file(
        tmp_path: Path, files: dict[str, str], says: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(TckError) as refused:
        agents_dir.load(tmp_path)
    assert refused.value.code is ErrorCode.USAGE and says in refused.value.message


def test_a_missing_directory_is_refused_with_the_option_named(tmp_path: Path) -> None:
    with pytest.raises(TckError) as refused:
        agents_dir.load(tmp_path / "nope")
    assert "--agents-dir" in refused.value.message and "is not a directory" in refused.value.message


@pytest.mark.parametrize(("option", "env"), [("--agents-dir", agents_dir.ENV),
                                             ("--claude-code", "SUBAGENT_TCK_CLAUDE_CODE")])
def test_the_server_takes_its_own_options_in_either_spelling_and_passes_the_rest_on(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, option: str, env: str) -> None:
    server = _load(ADAPTER / "server.py", "claude_code_server")
    for argv in ([option, str(tmp_path), "--port", "0"], [f"{option}={tmp_path}", "--port", "0"]):
        monkeypatch.delenv(env, raising=False)
        assert server._own_options(argv) == ["--port", "0"]
        assert Path(__import__("os").environ[env]) == tmp_path.resolve()
    with pytest.raises(SystemExit, match=f"{option} needs "):
        server._own_options([option])
