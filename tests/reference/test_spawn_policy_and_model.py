"""The reference's spawn policies (SP-01) and models (MO-01, MO-02): a scope's policies and
their handles, the start pipeline's SPAWN_DENIED after the gate, composed policies and models,
descriptors read back on cold resume, and the subagent tool's preset and agentOptions.model."""

from __future__ import annotations

import pytest

from subagent_tck.reference import (
    AcpProvider,
    Descriptor,
    Host,
    InProcessProvider,
    ModelReply,
    ScriptedModel,
    ToolCall,
)
from subagent_tck.spec import (
    CONTROLS,
    Capability,
    Edition,
    ErrorCode,
    Preset,
    TckError,
)

from .conftest import make_host

PRESETS = {"reviewer": Preset(), "Reviewer": Preset(), "writer": Preset(model="small"),
           "lead": Preset(spawn_policy={"deny": ["writer"]}, model="lead-model")}


def host(model: ScriptedModel | None = None, **kwargs: object) -> Host:
    made = make_host(edition=Edition.PRESET_COMPOSITION, model=model, root_model="root-model",
                     **kwargs)  # type: ignore[arg-type]
    for name, preset in PRESETS.items():
        made.add_preset(name, preset)
    return made


def start(made: Host, parent: str, **fields: object) -> str:
    return made.start_and_run(parent, {"provider": "spawn", "prompt": "go", **fields}).agent


def refused(made: Host, parent: str, **fields: object) -> TckError:
    with pytest.raises(TckError) as caught:
        made.start(parent, {"provider": fields.pop("provider", "spawn"), "prompt": "go",
                            **fields})
    return caught.value


def test_a_policy_handle_lifts_only_a_policy_and_a_second_dispose_is_harmless() -> None:
    made = host()
    root = made.create_agent().id
    policy = made.install_spawn_policy(root, {"deny": ["writer"]})
    restriction = made.restrict(root, {"deny": ["a"]})
    for wrong, lift in ((policy, made.dispose_restriction), (restriction,
                                                            made.dispose_spawn_policy)):
        with pytest.raises(TckError) as caught:
            lift(root, wrong)
        assert caught.value.code is ErrorCode.UNKNOWN_RESTRICTION
    assert refused(made, root, preset="writer").code is ErrorCode.SPAWN_DENIED
    made.dispose_spawn_policy(root, policy)
    made.dispose_spawn_policy(root, policy)
    assert start(made, root, preset="writer")


def test_an_unknown_preset_in_a_policy_is_refused_listing_every_one_and_installs_nothing() -> None:
    made = host()
    root = made.create_agent().id
    with pytest.raises(TckError) as caught:
        made.install_spawn_policy(root, {"allow": ["reviewer", "REVIEWER", "critic"]})
    assert caught.value.code is ErrorCode.INVALID_SPAWN_POLICY
    assert caught.value.details["offending"] == ["REVIEWER", "critic"]
    assert made.agent(root).scope.spawn_policies() == ()


def test_a_denied_start_names_the_preset_and_creates_nothing_after_the_capability_gate() -> None:
    made = host()
    root = made.create_agent().id
    made.install_spawn_policy(root, {"allow": ["Reviewer"]})
    sessions, events = len(made.sessions()), len(made.events.events())
    error = refused(made, root, preset="reviewer")
    assert error.code is ErrorCode.SPAWN_DENIED and error.details["preset"] == "reviewer"
    assert (len(made.sessions()), len(made.events.events())) == (sessions, events)
    gated = refused(made, root, preset="writer", provider="acp")  # a model acp cannot honour
    assert gated.code is ErrorCode.UNSUPPORTED_CAPABILITY  # the gate first (CA-03)
    assert start(made, root)  # a start naming no preset is outside every policy


def test_a_composed_policy_and_model_come_back_from_the_descriptor_on_resume() -> None:
    model = ScriptedModel()
    made = host(model)
    root = made.create_agent().id
    run = made.start_and_run(root, {"provider": "spawn", "prompt": "go", "preset": "lead"})
    stored = Descriptor.from_json(made.store.header(run.session).descriptor, run.session)
    assert (stored.spawn_policy, stored.model) == ({"deny": ["writer"]}, "lead-model")
    resumed = made.resume(run.session)
    assert refused(made, resumed.id, preset="writer").code is ErrorCode.SPAWN_DENIED
    made.run_turn(resumed.id, "again")
    assert [r.model for r in model.requests_of(resumed.id)] == ["lead-model"]
    inherited = made.start_and_run(run.agent if run.agent in {a.id for a in made.agents()}
                                   else resumed.id, {"provider": "spawn", "prompt": "go"})
    assert made.resume(inherited.session).model == "lead-model"  # its parent session's


def test_a_model_is_composed_request_over_preset_else_inherited_and_validated() -> None:
    model = ScriptedModel()
    made = host(model)
    root = made.create_agent().id
    chosen = start(made, root, preset="writer", model="tiny")
    preset = start(made, root, preset="writer")
    plain = start(made, root)
    assert [model.requests_of(a)[0].model for a in (chosen, preset, plain)] == [
        "tiny", "small", "root-model"]
    assert refused(made, root, model="").code is ErrorCode.INVALID_REQUEST
    assert refused(made, root, model="m", provider="acp").code is (
        ErrorCode.UNSUPPORTED_CAPABILITY)
    with pytest.raises(TckError) as caught:
        make_host(root_model="")
    assert caught.value.code is ErrorCode.INVALID_CONFIG


def test_a_session_model_walk_stops_at_a_planted_cycle() -> None:
    made = host()
    made.store.put_header("s1", "s2", "0", None)
    made.store.put_header("s2", "s1", "0", None)
    assert made.session_model("s1") == "root-model"
    assert made.session_model(None) == "root-model"


def test_the_subagent_tool_starts_its_preset_on_its_model_and_a_policy_refuses_the_call() -> None:
    model = ScriptedModel()
    made = host(model, providers=[InProcessProvider("spawn", CONTROLS), AcpProvider("acp")])
    root = made.create_agent().id
    made.load_subagent_tool({"provider": "spawn", "preset": "writer",
                             "agentOptions": {"model": "tool-model"}})
    for bad, code in (({"provider": "spawn", "toolName": "x", "preset": "nobody"},
                       ErrorCode.UNKNOWN_PRESET),
                      ({"provider": "spawn", "toolName": "y", "preset": ""},
                       ErrorCode.INVALID_CONFIG),
                      ({"provider": "acp", "toolName": "z", "agentOptions": {"model": "m"}},
                       ErrorCode.UNSUPPORTED_CAPABILITY)):
        with pytest.raises(TckError) as caught:
            made.load_subagent_tool(bad)
        assert caught.value.code is code
    call = ModelReply(tool_calls=(ToolCall("t1", "subagent",
                                           {"description": "d", "prompt": "[child] go"}),))
    model.script("[root]", call, ModelReply(text="ok"), call, ModelReply(text="ok"))
    made.run_turn(root, "[root] first")
    child = next(r for r in model.requests if r.agent != root)
    assert child.model == "tool-model"
    made.install_spawn_policy(root, {"deny": ["writer"]})
    before = len(made.sessions())
    made.run_turn(root, "again")
    result = [m for r in model.requests_of(root) for m in r.messages if m.role == "tool"][-1]
    assert result.is_error and "'writer'" in str(result.content)
    assert len(made.sessions()) == before
    assert Capability.MODEL_SELECTION in made.providers.get("spawn").capabilities  # type: ignore[union-attr]
