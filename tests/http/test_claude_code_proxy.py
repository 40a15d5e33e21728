"""The Claude Code adapter's model endpoint (adapters/claude-code/claude_code_adapter/proxy.py)
without Claude Code: the renaming of the kit's MCP tools both ways, the start driver, and the
forwarding to the kit's gateway with attribution by marker."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_helpers import MODEL_ROUTES, front_lines, gone_within, model_start, timed_out
from hypothesis import assume, given
from hypothesis import strategies as st

from subagent_tck.conformance.core.gateway import Gateway, call
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    ModelReply,
    ModelRequest,
    ToolCall,
)
from subagent_tck.conformance.engine.checks._names import tool_names
from subagent_tck.conformance.transports.gateway_anthropic import (
    agent_marker,
    events_to_reply,
    reply_to_events,
    reply_to_message,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "claude-code"))

from claude_code_adapter.proxy import PREFIX, Proxy, Route, fold_listing, to_claude, to_kit

names = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=10)


@given(st.lists(names, min_size=1, max_size=4, unique=True), st.sampled_from(["Agent", "Read"]))
def test_the_kits_tools_travel_under_the_kits_names_and_come_back_prefixed(
        tools: list[str], builtin: str) -> None:
    body: dict[str, Any] = {
        "tools": [{"name": PREFIX + t} for t in tools] + [{"name": builtin}],
        "messages": [{"role": "assistant", "content": [
            {"type": "tool_use", "id": "x", "name": PREFIX + tools[0], "input": {}}]}]}
    plain = to_kit(body)
    assert plain == {builtin}
    assert [t["name"] for t in body["tools"]] == [*tools, builtin]
    assert body["messages"][0]["content"][0]["name"] == tools[0]
    reply = ModelReply(toolCalls=[ToolCall(id="a", name=tools[-1]),
                                  ToolCall(id="b", name=builtin),
                                  ToolCall(id="c", name="never-offered")])
    for data, kind in ((reply_to_events(reply).encode(), "text/event-stream"),
                       (json.dumps(reply_to_message(reply)).encode(), "application/json")):
        renamed, called = to_claude(data, kind, plain)
        assert called == [tools[-1], builtin, "never-offered"]
        back = events_to_reply(renamed.decode()) if kind.startswith("text") else None
        calls = back.toolCalls if back else [
            ToolCall(id=b["id"], name=b["name"]) for b in json.loads(renamed)["content"]]
        assert [c.name for c in calls] == [PREFIX + tools[-1], builtin, PREFIX + "never-offered"]


def test_a_marked_request_reaches_the_kit_attributed_and_renamed(
        kit: tuple[Gateway, str], proxy: Proxy) -> None:
    gateway, url = kit
    drive_calls: list[str] = []

    def drive(request: ModelRequest, token: str, body: dict[str, Any]) -> ModelReply:
        drive_calls.append(token)
        return call("Agent", {"prompt": "go"})

    route = Route(url, drive)
    base = proxy.mount("d1", route)
    gateway.script("go read", call("read", {"path": "/x"}))
    body = {"model": "m", "max_tokens": 5, "stream": True,
            "system": [{"type": "text", "text": "persona\n" + agent_marker("child-1")}],
            "tools": [{"name": PREFIX + "read", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": "go read"}]}
    answer = httpx.post(f"{base}/v1/messages?beta=true", json=body)
    assert answer.status_code == 200
    reply = events_to_reply(answer.text)
    assert [c.name for c in reply.toolCalls] == [PREFIX + "read"]
    [request] = gateway.requests("child-1")
    assert [t.name for t in request.tools] == ["read"] and request.system == "persona"
    assert route.told == {"read": "child-1"}
    assert route.last["child-1"].system == "persona"
    body["system"] = "root\n[subagent-tck start=s1]"
    driven = httpx.post(f"{base}/v1/messages", json={**body, "stream": False})
    assert driven.json()["content"][0]["name"] == "Agent" and drive_calls == ["s1"]
    assert len(gateway.exchanges) == 1  # the start driver's request never reaches the kit
    body["system"] = "no marker"
    refused = httpx.post(f"{base}/v1/messages", json=body)
    assert refused.status_code == 403 and len(gateway.unattributed) == 1


def test_the_endpoint_answers_an_unknown_route_or_deployment_with_an_anthropic_404(
        proxy: Proxy) -> None:
    for path in ("/p/nope/v1/messages", "/elsewhere"):
        answer = httpx.post(f"{proxy.url}{path}", json={})
        assert answer.status_code == 404 and answer.json()["type"] == "error"


def _stand_in(script: Path) -> Any:
    """A stand-in for ``claude`` as the adapter runs an installed version (install.py)."""
    from claude_code_adapter.install import Install

    return Install(script.parent, "2.1.332", (str(script),))


@contextmanager
def _deployment(folder: Path, script: str | None = None,
                config: DeploymentConfig | None = None) -> Iterator[Any]:
    """A deployment, behind a proxy of its own, whose ``claude`` is ``folder/claude``: the
    shell ``script`` when one is given (_stand_in); closed with its proxy afterwards."""
    from claude_code_adapter import target

    fake = folder / "claude"
    if script is not None:
        fake.write_text("#!/bin/sh\n" + script, encoding="utf-8")
        fake.chmod(0o755)
    proxy = Proxy()
    deployment = target.ClaudeCodeDeployment(config or DeploymentConfig(),
                                             "http://127.0.0.1:9/d/g1", proxy, "d1",
                                             claude=_stand_in(fake))
    try:
        yield deployment
    finally:
        deployment.close()
        proxy.close()


def test_a_claude_run_that_hangs_ends_within_its_timeout_with_every_process_it_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in for `claude -p` that never answers and leaves a child behind: the run ends
    with TIMEOUT after SUBAGENT_TCK_CLAUDE_TIMEOUT, and its whole process group is gone."""

    from claude_code_adapter import run


    pids = tmp_path / "pids"
    monkeypatch.setattr(run, "RUN_TIMEOUT", 1.0)
    with _deployment(tmp_path, f"sleep 60 &\necho $! > {pids}\nsleep 60\n") as deployment:
        timed_out(lambda: deployment.run_turn("root", "hello"), 5)
        left = int(pids.read_text())
        assert gone_within([left], 3.0)
        assert [(e.kind, e.data) for e in deployment.events()] == [
            ("run.started", {}), ("run.stopped", {"stopReason": "error"})]
    assert not deployment.dir.exists()  # the project directory went with the deployment


@pytest.mark.parametrize("stdout", ["null", "[]", "\"text\"", "not json", ""])
def test_a_claude_run_whose_output_is_no_result_object_ends_in_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stdout: str) -> None:
    """A stand-in for `claude -p` that prints JSON other than an object (or no JSON): the turn
    stops with ERROR and stderr as its output, its run.stopped recorded; never a crash."""
    with _deployment(tmp_path, f"printf '%s' '{stdout}'\necho oops >&2\n") as deployment:
        result = deployment.run_turn("root", "hello")
        assert (result.stopReason.value, result.output) == ("error", "oops\n")
        assert [(e.kind, e.data) for e in deployment.events()] == [
            ("run.started", {}), ("run.stopped", {"stopReason": "error"})]


def test_a_start_whose_run_never_ends_is_a_timeout_that_publishes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain of nested children that never ends is one `claude -p` run: killed with its
    group at SUBAGENT_TCK_CLAUDE_TIMEOUT, the start ends with TIMEOUT and no child it began
    was published (docs/claude-code.md "Robustness")."""
    from claude_code_adapter import run

    from subagent_tck.conformance.core.protocol import StartRequest
    from subagent_tck.spec import ErrorCode, TckError

    monkeypatch.setattr(run, "RUN_TIMEOUT", 1.0)
    # each level starts the next and waits: a chain of processes that never ends
    with _deployment(tmp_path, "sh -c 'sleep 60 & sh -c \"sleep 60\"' &\nsleep 60\n") \
            as deployment:
        with pytest.raises(TckError) as refused:
            deployment.start(StartRequest(parent="root", provider="agent", prompt="go"))
        assert refused.value.code is ErrorCode.TIMEOUT
        assert deployment.events() == [] and deployment.agents() == ["root"]
        assert not list(deployment.agents_dir.glob("tck-child-*.md"))


@pytest.mark.parametrize("field", ["outputSchema", "persona", "toolFilter", "spawnPolicy",
                                   "model"])
def test_a_start_control_given_as_null_is_absent_not_refused(
        tmp_path: Path, field: str) -> None:
    """A control given as null counts as absent (docs/rules.md#TF-07, Decision): the start is
    the one without it. The fuzz campaign once found `outputSchema: null` refused as the
    unadvertised capability on a traffic adapter (CA-01's false failure)."""
    from subagent_tck.conformance.core.protocol import StartRequest

    with _deployment(tmp_path) as deployment:
        request = StartRequest.model_validate(
            {"parent": "root", "provider": deployment.provider, "prompt": "p", field: None})
        assert deployment._start_preset(request) is None


@given(st.sampled_from(MODEL_ROUTES),
       st.text(st.characters(categories=["L", "N", "P"]), min_size=1, max_size=12),
       st.text(st.characters(categories=["L", "N", "P"]), min_size=1, max_size=12))
def test_a_starts_model_is_its_definitions_model_the_requests_winning(
        route: str, preset_model: str, request_model: str) -> None:
    """Claude Code takes a child's model from its agent definition (docs/claude-code.md, the
    mapping): the start's model is written there as the kit wrote it, the request's winning
    over the preset's (docs/rules.md#MO-01), no line at all for a child composed without one
    (Claude Code runs it on its parent's); the deployment's model is every run's --model."""
    import tempfile

    from claude_code_adapter import run

    from subagent_tck.conformance.core.protocol import PresetSpec
    from subagent_tck.spec import Capability

    config = DeploymentConfig(presets=[PresetSpec(name="p", model=preset_model)],
                              model="root-model")
    with tempfile.TemporaryDirectory() as tmp, _deployment(Path(tmp), config=config) \
            as deployment:
        assert Capability.MODEL_SELECTION in deployment.providers()[0].capabilities
        definition, want = model_start(deployment, route, preset_model, request_model)
        assert front_lines(definition, "model") == (
            [] if want is None else [f"model: {json.dumps(want)}"])
        argv = run.command(_stand_in(Path(tmp) / "c"), run.Run("go", system="s"),
                           Path(tmp) / "m.json", [], config.model)
        assert argv[argv.index("--model") + 1] == "root-model"
        assert "--model" not in run.command(_stand_in(Path(tmp) / "c"), run.Run("go"),
                                            Path(tmp) / "m.json", [])


def test_a_tool_on_a_server_the_running_claude_never_connected_to_is_not_waited_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A running ``claude`` lists again only the MCP servers of its ``--mcp-config``, read when
    it starts: a global registered on a server made since is not waited for, one on a server
    it has is (here nothing re-lists, so that one waits the relist timeout out). Waiting for
    the former cost the timeout on every such change and changed nothing
    (docs/claude-code.md#tf-09-timing)."""
    import threading
    import time

    from claude_code_adapter import target

    from subagent_tck.conformance.core.protocol import ToolSpec

    monkeypatch.setattr(target.ClaudeCodeDeployment, "relist", 1.5)
    with _deployment(tmp_path, "sleep 30\n",  # runs, never re-lists
                     DeploymentConfig(tools=[ToolSpec(name="alpha")])) as deployment:
        turn = threading.Thread(target=lambda: deployment.run_turn("root", "hello"),
                                daemon=True)
        try:
            turn.start()
            deadline = time.monotonic() + 10
            while not deployment._listening() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert deployment._listening(), "the stand-in claude never ran"
            started = time.monotonic()
            deployment.register_tool(ToolSpec(name="late", server="fresh"))
            assert time.monotonic() - started < 1.0  # a server it never connected to
            started = time.monotonic()
            deployment.register_tool(ToolSpec(name="later"))
            assert time.monotonic() - started >= 1.4  # its own server: waited for a re-listing
        finally:
            deployment.abort_turn("root")
            turn.join(10)


@given(tool_names(1, 4), st.sampled_from(["allow", "deny", "both", "empty"]),
       st.sampled_from([None, {"deny": ["tool_b"]}, {"allow": ["tool_a", "Agent"]},
                        {"allow": ["tool_a"]}]))
def test_a_spawn_policy_is_written_as_agent_type_entries_of_the_types_standing_for_its_presets(
        presets: list[str], shape: str, tool_filter: dict[str, list[str]] | None) -> None:
    """A preset's spawn policy in its definition as a Claude Code user writes one
    (docs/claude-code.md#spawn-policies): ``Agent(T, ...)`` in ``tools`` for the admitted
    presets and in ``disallowedTools`` for the refused ones, each preset named by the agent
    type the adapter wrote for it; no allow list keeps every kit server (``mcp__tck``) beside
    it, an allow list naming the tool has it replaced, one without the tool stays as it is; an
    empty deny list writes nothing (``Agent()`` in ``disallowedTools`` would hide the tool)."""
    import tempfile

    from subagent_tck.conformance.core.protocol import PresetSpec, ToolSpec
    from subagent_tck.conformance.transports.traffic_routes import slug

    assume("lead" not in presets)
    policy = {"allow": {"allow": presets[:1]}, "deny": {"deny": presets[:1]},
              "both": {"allow": presets, "deny": presets[1:]}, "empty": {"allow": []}}[shape]
    lead = PresetSpec(name="lead", spawnPolicy=policy, toolFilter=tool_filter)
    config = DeploymentConfig(presets=[lead, *(PresetSpec(name=n) for n in presets)],
                              tools=[ToolSpec(name="tool_a"), ToolSpec(name="tool_b")])
    with tempfile.TemporaryDirectory() as tmp, _deployment(Path(tmp), config=config) \
            as deployment:
        types = [f"tck-preset-{i}-{slug(n)}" for i, n in enumerate(presets, 1)]
        text = (deployment.agents_dir / "tck-preset-0-lead.md").read_text(encoding="utf-8")

        def listed(key: str) -> list[str] | None:  # a slug may hold "---": split by lines
            lines = text.splitlines()
            front = lines[1:lines.index("---", 1)]
            found = [line for line in front if line.startswith(f"{key}:")]
            return json.loads(found[0].split(":", 1)[1]) if found else None

        def entry(names: list[str]) -> str:
            return f"Agent({', '.join(types[presets.index(n)] for n in names)})"

        allow, deny = (tool_filter or {}).get("allow"), (tool_filter or {}).get("deny")
        if policy.get("allow") is not None:
            typed = entry(policy["allow"])
            want = ["mcp__tck", typed] if allow is None else \
                ["mcp__tck__tool_a", typed] if "Agent" in allow else ["mcp__tck__tool_a"]
            assert listed("tools") == want
        else:
            assert listed("tools") == (None if allow is None else ["mcp__tck__tool_a",
                                                                   *(["Agent"] if "Agent" in
                                                                     allow else [])])
        if policy.get("deny"):  # an empty deny list refuses nothing: nothing is written
            assert listed("disallowedTools") == [*(["mcp__tck__tool_b"] if deny else []),
                                                 entry(policy["deny"])]
        else:
            assert listed("disallowedTools") == (["mcp__tck__tool_b"] if deny else None)


TYPE = st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)


@given(types=st.lists(TYPE, min_size=1, max_size=5, unique=True), tool=st.sampled_from(
    ["Agent", "Task"]), where=st.sampled_from(["system", "reminder"]),
    later=st.lists(TYPE, max_size=3, unique=True))
def test_the_agent_type_listing_of_a_message_is_read_as_part_of_the_delegation_tool(
        types: list[str], tool: str, where: str, later: list[str]) -> None:
    # Claude Code 2.1.332 lists the agent types in a message (a system message for some models,
    # a <system-reminder> in a user message for others); its tool says the list is there
    def listing(names: list[str]) -> str:
        lines = "".join(f"- {n}: subagent-tck agent preset:{n} (Tools: All tools)\n" for n in names)
        return f"Available agent types for the {tool} tool:\n{lines}\nWhen you launch..."

    def message(names: list[str]) -> dict[str, Any]:
        if where == "system":
            return {"role": "system", "content": [{"type": "text", "text": listing(names)}]}
        return {"role": "user", "content": [
            {"type": "text", "text": f"<system-reminder>\n{listing(names)}</system-reminder>"},
            {"type": "text", "text": "go"}]}

    said = "Available agent types are listed in messages from the system in the conversation."
    body: dict[str, Any] = {
        "tools": [{"name": tool, "description": said}, {"name": PREFIX + "read",
                                                         "description": "reads"}],
        "messages": [message(types), *([message(later)] if later else [])]}
    fold_listing(body, frozenset({tool}))
    description = body["tools"][0]["description"]
    assert description.startswith(said + "\n\nAvailable agent types for the")
    # the last listing is the one in force; each of its types on a line of its own
    listed = later or types
    assert description.endswith(f"- {listed[-1]}: subagent-tck agent preset:{listed[-1]} "
                                "(Tools: All tools)")
    assert all(f"- {n}: " in description for n in listed)
    assert "When you launch" not in description and body["tools"][1]["description"] == "reads"
    quiet: dict[str, Any] = {"tools": [{"name": tool, "description": said}],
                             "messages": [{"role": "user", "content": "go"}]}
    fold_listing(quiet, frozenset({tool}))  # a subagent's first request lists nothing
    assert quiet["tools"][0]["description"] == said


def test_a_preset_s_own_tools_are_an_inline_server_of_a_user_definition_and_runs_load_it(
        tmp_path: Path) -> None:
    """A preset with tools of its own (PresetSpec.tools) is written as a definition of the
    user's (~/.claude/agents of the runs' home: Claude Code skips inline servers of a project
    definition) whose mcpServers defines one server inline, named like the kit's default
    server; runs then load the user's settings and drop --strict-mcp-config, which skips
    inline servers (docs/claude-code.md#own-tools)."""
    from claude_code_adapter import run

    from subagent_tck.conformance.core.protocol import PresetSpec, ToolSpec

    own = ToolSpec(name="lima", description="own lima")
    config = DeploymentConfig(tools=[ToolSpec(name="alpha")],
                              presets=[PresetSpec(name="p", tools=[own]), PresetSpec(name="q")])
    with _deployment(tmp_path, config=config) as deployment:
        files = deployment.preset_files
        user = deployment.dir / "home" / ".claude" / "agents"
        assert not (deployment.agents_dir / f"{files['p']}.md").exists()
        definition = (user / f"{files['p']}.md").read_text(encoding="utf-8")
        [line] = front_lines(definition, "mcpServers")
        [servers] = json.loads(line.split(":", 1)[1])
        assert list(servers) == ["tck"] and servers["tck"]["type"] == "stdio"
        listed = json.loads(Path(servers["tck"]["args"][-3]).read_text(encoding="utf-8"))
        assert [(t["name"], t["description"]) for t in listed] == [("lima", "own lima")]
        assert (deployment.agents_dir / f"{files['q']}.md").exists()  # no tools: the project's
        assert deployment._kit_name("mcp__tck__lima") == "lima"
    stand_in = _stand_in(tmp_path / "c")
    loose = run.command(stand_in, run.Run("go"), tmp_path / "m.json", [], strict=False)
    assert "--strict-mcp-config" not in loose
    assert loose[loose.index("--setting-sources") + 1] == "user,project"
    strict = run.command(stand_in, run.Run("go"), tmp_path / "m.json", [])
    assert "--strict-mcp-config" in strict
    assert strict[strict.index("--setting-sources") + 1] == "project"
