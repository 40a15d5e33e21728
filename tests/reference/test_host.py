"""The Host's public entries: malformed input is refused with a stable code and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from subagent_tck.reference import Agent, Host, PromptSection, ScriptedModel
from subagent_tck.spec import PERSONA_SECTION, ErrorCode, Origin, Preset, TckError

from .conftest import echo, make_host, state


@pytest.fixture
def host() -> Host:
    h = make_host()
    h.create_agent()
    return h


def root(host: Host) -> str:
    return host.agents()[0].id


BAD_CALLS: list[tuple[str, Callable[[Host], Any], ErrorCode]] = [
    ("register duplicate", lambda h: h.register_tool(echo("a")), ErrorCode.DUPLICATE_TOOL),
    ("register run_code", lambda h: h.register_tool(echo("run_code")), ErrorCode.RESERVED_NAME),
    ("register local run_code", lambda h: h.register_tool(echo("run_code"), root(h)),
     ErrorCode.RESERVED_NAME),
    ("register not a tool", lambda h: h.register_tool("a"), ErrorCode.INVALID_REQUEST),
    ("register on unknown agent", lambda h: h.register_tool(echo("z"), "agent-9"),
     ErrorCode.UNKNOWN_AGENT),
    ("unregister missing", lambda h: h.unregister_tool("zz"), ErrorCode.UNKNOWN_TOOL),
    ("unregister missing local", lambda h: h.unregister_tool("a", root(h)),
     ErrorCode.UNKNOWN_TOOL),
    ("restrict unknown name", lambda h: h.restrict(root(h), {"allow": ["zz"]}),
     ErrorCode.INVALID_TOOL_FILTER),
    ("restrict no-op", lambda h: h.restrict(root(h), {}), ErrorCode.INVALID_TOOL_FILTER),
    ("restrict unknown agent", lambda h: h.restrict("nobody", {"deny": ["a"]}),
     ErrorCode.UNKNOWN_AGENT),
    ("dispose unknown handle", lambda h: h.dispose_restriction(root(h), "x"),
     ErrorCode.UNKNOWN_RESTRICTION),
    ("bad mode", lambda h: h.set_mode(root(h), "fancy"), ErrorCode.INVALID_REQUEST),
    ("view unknown agent", lambda h: h.view("nobody"), ErrorCode.UNKNOWN_AGENT),
    ("view non-string agent", lambda h: h.view(3), ErrorCode.UNKNOWN_AGENT),
    ("schemas unknown agent", lambda h: h.tool_schemas("nobody"), ErrorCode.UNKNOWN_AGENT),
    ("lookup non-string", lambda h: h.lookup(root(h), 3), ErrorCode.INVALID_REQUEST),
    ("execute bad arguments", lambda h: h.execute(root(h), "a", []), ErrorCode.INVALID_REQUEST),
    ("execute unknown agent", lambda h: h.execute("nobody", "a", {}), ErrorCode.UNKNOWN_AGENT),
    ("sdk unknown agent", lambda h: h.sdk_bindings("nobody"), ErrorCode.UNKNOWN_AGENT),
    ("prompt unknown agent", lambda h: h.prompt("nobody"), ErrorCode.UNKNOWN_AGENT),
    ("bad section", lambda h: h.add_section(PromptSection("s", "{{x}}")),
     ErrorCode.INVALID_TEMPLATE),
    ("bad scoped section", lambda h: h.add_section(PromptSection("s", "{{x}}"), root(h)),
     ErrorCode.INVALID_TEMPLATE),
    ("remove missing section", lambda h: h.remove_section("nope"), ErrorCode.INVALID_REQUEST),
    ("remove missing scoped section", lambda h: h.remove_section("nope", root(h)),
     ErrorCode.INVALID_REQUEST),
    ("bad preset", lambda h: h.add_preset("p", {"persona": "x"}), ErrorCode.INVALID_CONFIG),
    ("unnamed preset", lambda h: h.add_preset("", Preset()), ErrorCode.INVALID_CONFIG),
    ("duplicate provider", lambda h: h.add_provider(h.providers.all()[0]),
     ErrorCode.INVALID_CONFIG),
    ("remove missing provider", lambda h: h.remove_provider("nope"), ErrorCode.NO_PROVIDER),
    ("bad turn prompt", lambda h: h.run_turn(root(h), 3), ErrorCode.INVALID_REQUEST),
    ("turn of unknown agent", lambda h: h.run_turn("nobody", "x"), ErrorCode.UNKNOWN_AGENT),
    ("bad create mode", lambda h: h.create_agent(mode="x"), ErrorCode.INVALID_REQUEST),
    ("bad runtime context", lambda h: h.set_runtime_context("yes"), ErrorCode.INVALID_REQUEST),
    ("abort unknown agent", lambda h: h.abort_turn("nobody"), ErrorCode.UNKNOWN_AGENT),
]


@pytest.mark.parametrize(("what", "call", "code"), BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_input_at_a_public_entry_is_refused_and_changes_nothing(
    host: Host, what: str, call: Callable[[Host], Any], code: ErrorCode
) -> None:
    before = state(host)
    with pytest.raises(TckError) as caught:
        call(host)
    assert caught.value.code is code
    assert caught.value.message
    assert state(host) == before


def test_without_the_component_module_the_subagent_tool_entries_are_invalid_config(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    from subagent_tck.reference import host as host_module

    monkeypatch.setattr(host_module, "COMPONENT_MODULE", "subagent_tck.reference._not_shipped")
    before = state(host)
    for call in (
        lambda: host.load_subagent_tool({"provider": "spawn"}),
        lambda: host.unload_subagent_tool("subagent"),
    ):
        with pytest.raises(TckError) as caught:
            call()
        assert caught.value.code is ErrorCode.INVALID_CONFIG
        assert "not installed" in caught.value.message
    assert state(host) == before


def test_a_component_module_that_fails_to_import_is_not_hidden(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    from subagent_tck.reference import host as host_module

    monkeypatch.setattr(host_module, "COMPONENT_MODULE", "subagent_tck.nowhere.component")
    with pytest.raises(ModuleNotFoundError):
        host.load_subagent_tool({"provider": "spawn"})


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"edition": "other"}, ErrorCode.INVALID_CONFIG),
        ({"variables": {"a": 1}}, ErrorCode.INVALID_CONFIG),
        ({"persona": 3}, ErrorCode.INVALID_CONFIG),
        ({"persona": "{{nope}}"}, ErrorCode.INVALID_TEMPLATE),
        ({"host_depth": -1}, ErrorCode.INVALID_DEPTH),
        ({"mode": "x"}, ErrorCode.INVALID_REQUEST),
    ],
)
def test_a_malformed_host_configuration_is_refused(kwargs: dict[str, Any], code: ErrorCode) -> None:
    with pytest.raises(TckError) as caught:
        Host(ScriptedModel(), **kwargs)
    assert caught.value.code is code


def test_the_first_agent_is_published_at_depth_zero_with_its_header(host: Host) -> None:
    agent = host.agents()[0]
    assert agent.depth == 0 and agent.published
    header = host.store.header(agent.session)
    assert (header.parent, header.depth(), header.descriptor) == (None, 0, None)
    assert [e.kind for e in host.events.events()][-1] == "agent.published"


def test_local_tools_stay_in_their_scope(host: Host) -> None:
    other = host.create_agent()
    host.register_tool(echo("mine"), root(host))
    host.restrict(root(host), {"allow": ["a"]})
    assert [e.name for e in host.view(root(host))] == ["a", "mine"]
    assert [e.name for e in host.view(other.id)] == ["a", "b", "c"]
    assert [e.name for e in host.view()] == ["a", "b", "c"]
    host.unregister_tool("mine", root(host))
    assert [e.name for e in host.view(root(host))] == ["a"]


def test_live_registry_changes_reach_every_view_at_once(host: Host) -> None:
    agent = root(host)
    host.restrict(agent, {"deny": ["a"]})
    other = host.create_agent()
    host.register_tool(echo("d"))
    host.restrict(other.id, {"allow": ["a", "d"]})
    host.unregister_tool("d")
    host.register_tool(echo("d"))
    host.register_tool(echo("e"))
    assert [e.name for e in host.view(agent)] == ["b", "c", "d", "e"]
    assert [e.name for e in host.view(other.id)] == ["a", "d"]
    host.unregister_tool("d")
    assert [e.name for e in host.view(other.id)] == ["a"]
    host.register_tool(echo("d"))
    assert [e.name for e in host.view(other.id)] == ["a", "d"]


def test_disposing_lifts_exactly_one_restriction(host: Host) -> None:
    agent = root(host)
    first = host.restrict(agent, {"deny": ["a"]})
    host.restrict(agent, {"deny": ["b"]})
    host.dispose_restriction(agent, first)
    host.dispose_restriction(agent, first)
    assert [e.name for e in host.view(agent)] == ["a", "c"]


def test_lookup_execute_and_sdk_follow_the_view(host: Host) -> None:
    agent = root(host)
    host.restrict(agent, {"deny": ["b"]})
    host.set_mode(agent, "both")
    assert host.lookup(agent, "b") is None
    entry = host.lookup(agent, "a")
    assert entry is not None and entry.origin is Origin.GLOBAL
    assert host.execute(agent, "b", {}).code == "UNKNOWN_TOOL"
    assert host.execute(agent, "a", {"x": 1}).content == {"tool": "a", "arguments": {"x": 1}}
    assert host.sdk_bindings(agent) == ("a", "c")
    assert [s.name for s in host.tool_schemas(agent)] == ["a", "c", "run_code"]


def test_deployment_sections_follow_the_persona_and_can_be_replaced(host: Host) -> None:
    host.add_section(PromptSection("guide", "Use b.", guides="b"))
    host.add_section(PromptSection("prose", "Be brief."))
    host.add_section(PromptSection("prose", "Be very brief."))
    agent = root(host)
    assert [s.text for s in host.prompt(agent)] == [
        "Deployment persona.", "Use b.", "Be very brief."
    ]
    host.restrict(agent, {"deny": ["b"]})
    assert host.system_text(agent) == "Deployment persona.\n\nBe very brief."
    host.remove_section("prose")
    host.add_section(PromptSection("note", "N"), agent)
    host.remove_section(PERSONA_SECTION)
    host.add_section(PromptSection(PERSONA_SECTION, "New persona."))
    assert [s.text for s in host.prompt(agent)] == ["New persona.", "N"]
    host.remove_section("note", agent)
    assert [s.text for s in host.prompt(agent)] == ["New persona."]


def test_presets_are_copied_when_defined(host: Host) -> None:
    allow = ["a"]
    host.add_preset("p", Preset("P", {"allow": allow}))
    allow.append("b")
    assert host.presets["p"].tool_filter == {"allow": ["a"]}


def test_provider_changes_are_lifecycle_events(host: Host) -> None:
    spawn = host.providers.get("spawn")
    assert spawn is not None
    host.remove_provider("spawn")
    host.add_provider(spawn)
    kinds = [(e.kind, e.data.get("provider")) for e in host.events.events()][-2:]
    assert kinds == [("provider.removed", "spawn"), ("provider.added", "spawn")]


def test_settings_are_live(host: Host) -> None:
    assert host.host_depth == 1 and host.runtime_context
    host.set_host_depth(3)
    host.set_runtime_context(False)
    assert host.host_depth == 3 and not host.runtime_context


def test_context_hooks_contribute_notices_only_with_runtime_context(host: Host) -> None:
    seen: list[str] = []

    def hook(agent: Agent) -> list[str]:
        seen.append(agent.id)
        return [f"notice for {agent.id}"]

    host.context_hooks.append(hook)
    agent = host.agents()[0]
    assert host.build_request(agent).context == (f"notice for {agent.id}",)
    host.set_runtime_context(False)
    assert host.build_request(agent).context == ()
    assert seen == [agent.id]


def test_completed_turns_are_persisted_once(host: Host) -> None:
    agent = host.agents()[0]
    host.run_turn(agent.id, "one")
    host.run_turn(agent.id, "two")
    assert [t["content"] for t in host.store.turns(agent.session)] == ["one", "done", "two", "done"]


def test_abort_turn_without_a_running_turn_is_a_no_op(host: Host) -> None:
    before = state(host)
    host.abort_turn(root(host))
    assert state(host) == before


def test_sessions_list_the_stored_headers(host: Host) -> None:
    assert [h.session for h in host.sessions()] == [host.agents()[0].session]


def test_sections_given_to_the_host_follow_the_persona_in_order() -> None:
    host = Host(ScriptedModel(), persona="P", sections=[PromptSection("x", "X"),
                                                        PromptSection("y", "Y")])
    agent = host.create_agent()
    assert [s.name for s in host.deployment_sections()] == [PERSONA_SECTION, "x", "y"]
    assert host.system_text(agent.id) == "P\n\nX\n\nY"


def test_new_session_ids_skip_those_already_stored() -> None:
    host = Host(ScriptedModel())
    host.store.put_header("session-1", None, "0")
    host.store.put_header("session-2", None, "0")
    assert host.create_agent().session == "session-3"
    assert host.create_agent().session == "session-4"


def test_retiring_an_agent_twice_changes_nothing_the_second_time(host: Host) -> None:
    agent = host.create_agent()
    host.retire(agent)
    before = state(host)
    host.retire(agent)
    assert state(host) == before and not agent.published


def test_persisting_without_new_messages_writes_nothing(host: Host) -> None:
    agent = host.agents()[0]
    host.run_turn(agent.id, "one")
    turns = host.store.turns(agent.session)
    host.persist_turns(agent)
    assert host.store.turns(agent.session) == turns
