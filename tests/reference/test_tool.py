from __future__ import annotations

import pytest

from subagent_tck.reference import AbortSignal, Tool, ToolResult
from subagent_tck.reference.tool import validate_tool
from subagent_tck.spec import ErrorCode, TckError

from .conftest import echo


def test_an_abort_signal_fires_its_callbacks_once_with_the_reason() -> None:
    signal = AbortSignal()
    seen: list[str] = []
    signal.on_abort(seen.append)
    assert not signal.aborted
    signal.abort("stop")
    signal.abort("again")
    assert signal.aborted and signal.reason == "stop" and seen == ["stop"]


def test_a_callback_added_after_the_abort_runs_at_once() -> None:
    signal = AbortSignal()
    signal.abort()
    seen: list[str] = []
    signal.on_abort(seen.append)
    assert seen == ["aborted"]


def test_a_tool_result_error_carries_its_code_and_serialises() -> None:
    result = ToolResult.error("UNKNOWN_TOOL", "no")
    assert result.to_json() == {"isError": True, "code": "UNKNOWN_TOOL", "content": "no"}


def test_a_tool_schema_carries_name_description_and_parameters() -> None:
    schema = echo("a", description="d").schema()
    assert (schema.name, schema.description, dict(schema.parameters)) == (
        "a",
        "d",
        {"type": "object"},
    )


@pytest.mark.parametrize(
    ("tool", "code"),
    [
        ("not a tool", ErrorCode.INVALID_REQUEST),
        (Tool("", lambda a, c: None), ErrorCode.INVALID_REQUEST),
        (Tool("x", "not callable"), ErrorCode.INVALID_REQUEST),  # type: ignore[arg-type]
        (Tool("x", lambda a, c: None, parameters="no"), ErrorCode.INVALID_REQUEST),  # type: ignore[arg-type]
        (Tool("x", lambda a, c: None, description=3), ErrorCode.INVALID_REQUEST),  # type: ignore[arg-type]
        (Tool("run_code", lambda a, c: None), ErrorCode.RESERVED_NAME),
    ],
)
def test_a_malformed_or_reserved_tool_is_refused_with_its_code(
    tool: object, code: ErrorCode
) -> None:
    with pytest.raises(TckError) as caught:
        validate_tool(tool)
    assert caught.value.code is code
