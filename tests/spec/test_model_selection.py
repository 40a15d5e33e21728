"""Model selection (spec/model_selection.py) and the start oracle's model (MO-01)."""

from __future__ import annotations

import pytest

from subagent_tck.spec import (
    ABSENT,
    CONTROLS,
    Edition,
    ErrorCode,
    Preset,
    StartState,
    child_model,
    decide_start,
    model_problem,
)


def state(parent_model: str | None = "parent-model") -> StartState:
    return StartState(
        edition=Edition.PRESET_COMPOSITION,
        providers={"spawn": list(CONTROLS), "acp": []},
        presets={"small": Preset(model="small-model"), "plain": Preset()},
        parent_model=parent_model,
    )


@pytest.mark.parametrize(("request_fields", "model"), [
    ({"preset": "small"}, "small-model"),
    ({"preset": "small", "model": "tiny"}, "tiny"),
    ({"preset": "small", "model": None}, "small-model"),
    ({"preset": "plain"}, "parent-model"),
    ({"model": "GPT-4o"}, "GPT-4o"),
    ({}, "parent-model"),
])
def test_a_child_runs_on_its_composed_model_else_its_parents(
    request_fields: dict[str, object], model: str,
) -> None:
    outcome = decide_start(state(), {"provider": "spawn", **request_fields})
    assert outcome.ok and outcome.model == model


def test_a_parent_that_reports_no_model_passes_none_on() -> None:
    assert decide_start(state(None), {"provider": "spawn"}).model is None


@pytest.mark.parametrize("value", ["", 7, ["m"], {"name": "m"}, True])
def test_a_model_that_is_no_name_is_refused(value: object) -> None:
    assert model_problem(value)
    outcome = decide_start(state(), {"provider": "spawn", "model": value})
    assert outcome.codes == {ErrorCode.INVALID_REQUEST}


def test_a_model_asked_of_a_provider_without_model_selection_is_unsupported() -> None:
    for request in ({"model": "m"}, {"preset": "small"}):
        outcome = decide_start(state(), {"provider": "acp", **request})
        assert outcome.codes == {ErrorCode.UNSUPPORTED_CAPABILITY}
        assert outcome.faults[0].capability is not None
        assert outcome.faults[0].capability.value == "modelSelection"


def test_child_model_reads_absent_and_null_as_the_parents() -> None:
    assert child_model(ABSENT, "p") == "p" and child_model(None, "p") == "p"
    assert child_model("c", "p") == "c" and model_problem("c") == ""
