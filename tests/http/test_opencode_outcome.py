"""What a call of ``task`` got, as opencode records it (adapters/opencode/opencode_adapter/
outcome.py ``delegated``): its wire to the model carries no error flag, so ST-09 reads the
flag in opencode's own record of the parent's task part (docs/opencode.md#st-09)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "opencode"))

from opencode_adapter.outcome import delegated


def _message(*parts: dict[str, object]) -> dict[str, object]:
    return {"info": {"role": "assistant"}, "parts": list(parts)}


def _task(call: str, status: str, **state: object) -> dict[str, object]:
    return {"type": "tool", "tool": "task", "callID": call,
            "state": {"status": status, **state}}


def test_the_task_part_of_the_call_is_read_errored_exactly_when_its_state_is_error() -> None:
    messages = [
        _message({"type": "text", "text": "starting"}, _task("call_tck_1", "completed",
                                                            output="<task>done</task>")),
        _message(_task("call_tck_2", "error", error="<task_error>cut</task_error>")),
    ]
    done = delegated(messages, "call_tck_1")
    failed = delegated(messages, "call_tck_2")
    assert done is not None and not done.isError and done.content == "<task>done</task>"
    assert failed is not None and failed.isError
    assert failed.content == "<task_error>cut</task_error>"


def test_a_call_opencode_never_recorded_is_not_reported() -> None:
    assert delegated([_message(_task("call_tck_1", "completed"))], "call_tck_9") is None
    assert delegated([], "call_tck_1") is None
