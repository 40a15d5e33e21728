"""The child start pipeline: gating, editions, unpublished setup, rollback, publication."""

from __future__ import annotations

from typing import Any

import pytest

from subagent_tck.reference import ChildStart, Host, ModelReply, ScriptedModel
from subagent_tck.spec import (
    PERSONA_SECTION,
    STRUCTURED_OUTPUT,
    Edition,
    ErrorCode,
    Preset,
    StopReason,
    TckError,
)

from .conftest import calls, make_host, state


def start(host: Host, **request: Any) -> Any:
    request.setdefault("provider", "spawn")
    request.setdefault("prompt", "task")
    parent = request.pop("parent", host.agents()[0].id)
    return host.start_and_run(parent, request)


@pytest.fixture
def host() -> Host:
    h = make_host(("a", "b", "c"), variables={"name": "Ada"})
    h.create_agent()
    return h


def model(host: Host) -> ScriptedModel:
    assert isinstance(host.model, ScriptedModel)
    return host.model


def test_the_first_request_already_carries_persona_filtered_tools_and_structured_output(
    host: Host,
) -> None:
    result = start(
        host,
        prompt="FIRST",
        persona="Reviewer {{name}}.",
        toolFilter={"allow": ["a", "b"], "deny": ["b"]},
        outputSchema={"type": "object", "properties": {"v": {"type": "string"}}},
    )
    first = model(host).requests_of(result.agent)[0]
    assert first.system == "Reviewer Ada."
    assert [t.name for t in first.tools] == ["a", STRUCTURED_OUTPUT]
    assert first.tools[1].parameters["properties"] == {"v": {"type": "string"}}
    published = [e for e in host.events.events() if e.kind == "agent.published"][-1]
    assert published.agent == result.agent
    assert published.data["snapshot"] == {
        "view": ["a", STRUCTURED_OUTPUT],
        "prompt": [[PERSONA_SECTION, "Reviewer Ada."]],
    }


def test_a_child_without_persona_carries_the_deployment_persona(host: Host) -> None:
    result = start(host)
    assert model(host).requests_of(result.agent)[0].system == "Deployment persona."


def test_an_empty_persona_shadows_the_deployment_persona(host: Host) -> None:
    result = start(host, persona="")
    assert model(host).requests_of(result.agent)[0].system == ""
    assert [(s.name, s.text) for s in host.prompt(result.agent)] == [(PERSONA_SECTION, "")]


def test_a_child_records_its_depth_and_descriptor_in_its_header(host: Host) -> None:
    result = start(host, persona="P", toolFilter={"deny": ["c"]}, maxDepth=1)
    header = host.store.header(result.session)
    assert header.depth() == 1 and result.depth == 1
    assert header.parent == host.agents()[0].session
    assert header.descriptor == {"provider": "spawn", "persona": "P", "toolFilter": {"deny": ["c"]}}


def test_the_run_emits_started_and_stopped_with_the_stop_reason(host: Host) -> None:
    model(host).script("STOP", ModelReply(text="cut", stop_reason=StopReason.MAX_TOKENS))
    result = start(host, prompt="STOP")
    kinds = [(e.kind, dict(e.data)) for e in host.events.events() if e.agent == result.agent]
    assert [k for k, _ in kinds] == ["agent.published", "run.started", "run.stopped"]
    assert kinds[-1][1] == {"stopReason": "max-tokens"}
    assert result.stop_reason is StopReason.MAX_TOKENS


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"toolFilter": {"allow": ["a", "nope"]}}, ErrorCode.INVALID_TOOL_FILTER),
        ({"toolFilter": {}}, ErrorCode.INVALID_TOOL_FILTER),
        ({"persona": "Hi {{unknown}}"}, ErrorCode.INVALID_TEMPLATE),
        ({"persona": 3}, ErrorCode.INVALID_REQUEST),
        ({"outputSchema": {"type": "array"}}, ErrorCode.INVALID_OUTPUT_SCHEMA),
        ({"provider": "nope"}, ErrorCode.NO_PROVIDER),
        ({"provider": 3}, ErrorCode.NO_PROVIDER),
        ({"preset": "nope"}, ErrorCode.UNKNOWN_PRESET),
        ({"preset": None}, ErrorCode.UNKNOWN_PRESET),
        ({"provider": "acp", "persona": "x"}, ErrorCode.UNSUPPORTED_CAPABILITY),
        ({"provider": "acp", "maxDepth": -1}, ErrorCode.UNSUPPORTED_CAPABILITY),
        ({"maxDepth": 0}, ErrorCode.DEPTH_EXCEEDED),
        ({"maxDepth": -1}, ErrorCode.INVALID_DEPTH),
        ({"prompt": 3}, ErrorCode.INVALID_REQUEST),
        ({"extra": 1}, ErrorCode.INVALID_REQUEST),
        ({"parent": "agent-99"}, ErrorCode.UNKNOWN_AGENT),
    ],
)
def test_a_failing_start_creates_nothing_and_makes_no_model_request(
    host: Host, request_: dict[str, Any], code: ErrorCode
) -> None:
    before = state(host)
    with pytest.raises(TckError) as caught:
        start(host, **request_)
    assert caught.value.code is code
    assert state(host) == before


def test_a_request_that_is_not_an_object_is_an_invalid_request(host: Host) -> None:
    before = state(host)
    with pytest.raises(TckError) as caught:
        host.start(host.agents()[0].id, ["spawn"])  # type: ignore[arg-type]
    assert caught.value.code is ErrorCode.INVALID_REQUEST
    assert state(host) == before


def test_the_capability_error_names_the_capability(host: Host) -> None:
    with pytest.raises(TckError) as caught:
        start(host, provider="acp", outputSchema={"type": "object"})
    assert caught.value.details["capability"] == "outputSchema"


def test_a_preset_composes_the_child_and_its_controls_are_gated() -> None:
    host = make_host(edition=Edition.PRESET_COMPOSITION)
    host.create_agent()
    host.add_preset("rev", Preset("Preset persona.", {"allow": ["b"]}, {"type": "object"}))
    result = start(host, preset="rev")
    first = model(host).requests_of(result.agent)[0]
    assert first.system == "Preset persona."
    assert [t.name for t in first.tools] == ["b", STRUCTURED_OUTPUT]
    assert host.store.header(result.session).descriptor == {
        "provider": "spawn",
        "preset": "rev",
        "persona": "Preset persona.",
        "toolFilter": {"allow": ["b"]},
        "outputSchema": {"type": "object"},
    }
    before = state(host)
    with pytest.raises(TckError) as caught:
        start(host, preset="rev", provider="acp")
    assert caught.value.code is ErrorCode.UNSUPPORTED_CAPABILITY
    assert state(host) == before


@pytest.mark.parametrize("field", ["persona", "toolFilter"])
def test_the_preset_composition_edition_refuses_request_controls(field: str) -> None:
    host = make_host(edition=Edition.PRESET_COMPOSITION)
    host.create_agent()
    before = state(host)
    with pytest.raises(TckError) as caught:
        start(host, **{field: None})
    assert caught.value.code is ErrorCode.REQUEST_CONTROLS_REFUSED
    assert state(host) == before


def test_a_request_value_wins_over_the_preset_and_null_falls_back_to_it(host: Host) -> None:
    host.add_preset("p", Preset("Preset.", {"deny": ["a"]}))
    own = start(host, preset="p", persona="Own.")
    fallback = start(host, preset="p", persona=None, toolFilter=None)
    assert model(host).requests_of(own.agent)[0].system == "Own."
    assert model(host).requests_of(fallback.agent)[0].system == "Preset."
    assert [t.name for t in model(host).requests_of(fallback.agent)[0].tools] == ["b", "c"]


def test_fork_seeds_the_child_with_the_parents_completed_turns(host: Host) -> None:
    root = host.agents()[0].id
    host.run_turn(root, "earlier question")
    spawned = start(host, provider="spawn", prompt="S")
    forked = start(host, provider="fork", prompt="F")
    spawn_msgs = model(host).requests_of(spawned.agent)[0].messages
    fork_msgs = model(host).requests_of(forked.agent)[0].messages
    assert [m.content for m in spawn_msgs] == ["S"]
    assert [m.content for m in fork_msgs] == ["earlier question", "done", "F"]


def test_a_structured_output_call_becomes_the_run_output(host: Host) -> None:
    model(host).script("SO", calls(STRUCTURED_OUTPUT, arguments={"v": "x"}), ModelReply(text="ok"))
    result = start(host, prompt="SO", outputSchema={"type": "object"})
    assert result.output == {"v": "x"}


def test_a_child_starts_in_the_deployment_mode_without_its_parents_locals() -> None:
    from .conftest import echo

    host = make_host(mode="both")
    root = host.create_agent().id
    host.set_mode(root, "native")
    host.register_tool(echo("parent_only"), root)
    result = start(host, parent=root)
    assert [e.name for e in host.view(result.agent)] == ["a", "b", "c", "run_code"]


def test_a_run_is_disposed_once_and_then_unpublished() -> None:
    host = make_host()
    root = host.create_agent()
    run = host.start(root.id, {"provider": "spawn", "prompt": "x"})
    assert run.agent.id in [a.id for a in host.agents()]
    run.dispose()
    run.dispose()
    with pytest.raises(TckError) as caught:
        run.result()
    assert caught.value.code is ErrorCode.INVALID_REQUEST
    assert [e.kind for e in host.events.events()].count("run.disposed") == 1
    assert run.agent.id not in [a.id for a in host.agents()]
    assert host.store.has(run.agent.session)


def test_a_result_is_computed_once(host: Host) -> None:
    run = host.start(host.agents()[0].id, {"provider": "spawn", "prompt": "x"})
    assert run.result() is run.result()


def test_a_cancelled_run_stops_aborted(host: Host) -> None:
    run = host.start(host.agents()[0].id, {"provider": "spawn", "prompt": "x"})
    run.cancel("user")
    result = run.result()
    assert result.stop_reason is StopReason.ABORTED and result.output == "user"


def test_a_provider_that_raises_ends_the_run_with_an_error(host: Host) -> None:
    from subagent_tck.reference import InProcessProvider

    class Broken(InProcessProvider):
        def run(self, *args: Any) -> Any:
            raise RuntimeError("crashed")

    host.add_provider(Broken("broken"))
    result = start(host, provider="broken")
    assert result.stop_reason is StopReason.ERROR and "crashed" in result.output


def test_a_setup_step_that_fails_late_still_rolls_everything_back(host: Host) -> None:
    class LateFailure(ChildStart):
        def seed_messages(self, child: Any) -> None:
            raise TckError(ErrorCode.SETUP_FAILED, "seed failed")

    class LateHost(Host):
        child_start_class = LateFailure

    late = make_host(model=ScriptedModel())
    late.__class__ = LateHost
    late.create_agent()
    before = state(late)
    with pytest.raises(TckError) as caught:
        start(late, persona="P", toolFilter={"deny": ["a"]})
    assert caught.value.code is ErrorCode.SETUP_FAILED
    assert state(late) == before
