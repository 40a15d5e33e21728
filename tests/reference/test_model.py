from __future__ import annotations

from subagent_tck.reference import Message, ModelReply, ModelRequest, ScriptedModel, ToolCall


def request(agent: str, text: str) -> ModelRequest:
    return ModelRequest(agent, "", (), (Message("user", text),))


def test_a_message_round_trips_through_json() -> None:
    message = Message("assistant", "x", (ToolCall("1", "a", {"k": 1}),), None, False)
    assert Message.from_json(message.to_json()) == message
    tool = Message("tool", {"r": 1}, (), "1", True)
    assert Message.from_json(tool.to_json()) == tool


def test_scripts_bind_to_the_agent_whose_prompt_has_the_marker() -> None:
    model = ScriptedModel()
    model.script("M1", ModelReply(text="one"), lambda r: ModelReply(text=f"to {r.agent}"))
    assert model.complete(request("x", "unrelated")).text == "done"
    assert model.complete(request("y", "do M1 now")).text == "one"
    assert model.complete(request("z", "M1 again")).text == "done"  # bound to y already
    assert model.complete(request("y", "later")).text == "to y"
    assert model.complete(request("y", "later")).text == "done"
    assert [r.agent for r in model.requests_of("y")] == ["y", "y", "y"]
    assert len(model.requests) == 5
