from __future__ import annotations

import pytest

from subagent_tck.reference import Descriptor, check_output_schema
from subagent_tck.reference.descriptor import filter_json
from subagent_tck.spec import ErrorCode, TckError


def test_a_descriptor_keeps_only_the_controls_that_were_composed() -> None:
    full = Descriptor("spawn", "p", "", {"deny": ["a"]}, {"type": "object"})
    assert full.to_json() == {
        "provider": "spawn",
        "preset": "p",
        "persona": "",
        "toolFilter": {"deny": ["a"]},
        "outputSchema": {"type": "object"},
    }
    assert Descriptor("fork").to_json() == {"provider": "fork"}
    assert Descriptor.from_json(full.to_json()) == full


@pytest.mark.parametrize(
    "data",
    [None, [], {}, {"provider": 1}, {"provider": "s", "persona": 1},
     {"provider": "s", "toolFilter": []}, {"provider": "s", "outputSchema": "x"},
     {"provider": "s", "preset": 2}],
)
def test_a_malformed_descriptor_is_not_resumable(data: object) -> None:
    with pytest.raises(TckError) as caught:
        Descriptor.from_json(data, "s1")
    assert caught.value.code is ErrorCode.NOT_RESUMABLE


@pytest.mark.parametrize(
    "schema",
    [None, "object", {}, {"type": "array"}, {"type": "object", "x": float("nan")},
     {"type": "object", "x": object()}],
)
def test_an_output_schema_must_be_a_json_object_schema(schema: object) -> None:
    with pytest.raises(TckError) as caught:
        check_output_schema(schema)
    assert caught.value.code is ErrorCode.INVALID_OUTPUT_SCHEMA


def test_a_valid_output_schema_is_copied() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    copied = check_output_schema(schema)
    schema["properties"]["a"]["type"] = "number"
    assert copied["properties"]["a"]["type"] == "string"


def test_a_stored_filter_copies_its_lists_and_drops_absent_ones() -> None:
    allow = ["a"]
    stored = filter_json({"allow": allow, "deny": None})
    allow.append("b")
    assert stored == {"allow": ["a"]}
