"""The codec's reuse of what it read before (conformance/transports/codec.py, ``validate``): the
text it checks stands for the value, a result is shared only where nobody can change it."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from subagent_tck.conformance.core.protocol import (
    AgentRef,
    Origin,
    ToolSchema,
    ViewEntry,
)
from subagent_tck.conformance.transports import codec
from subagent_tck.conformance.transports.wire import OPERATIONS, dumps, loads

names = st.text(min_size=1, max_size=12)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=True),
    st.just(-0.0), st.text(max_size=10),
    st.sampled_from(["NaN", "Infinity", "$number", "a$b", "-Infinity"]),
)
keys = st.one_of(st.text(max_size=6), st.sampled_from(["$number", "$literal", "NaN"]))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=3)),
    max_leaves=14,
)


def identical(a: Any, b: Any) -> bool:
    """The same JSON value: the same types (an integer is no float), NaN equal to NaN, the sign
    of zero counted."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, list):
        return len(a) == len(b) and all(map(identical, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(identical(a[k], b[k]) for k in a)
    return bool(a == b)


@settings(max_examples=300)
@given(values)
def test_the_text_a_read_value_is_checked_by_means_what_the_wire_text_means(value: Any) -> None:
    read = loads(dumps(value))  # what validate is given: a value the codec read
    assert identical(loads(codec._text(read)), read)


def entry_texts(draw: st.DrawFn) -> list[dict[str, Any]]:
    return draw(st.lists(st.builds(
        lambda n, o, d: {"name": n, "origin": o.value, "description": d},
        names, st.sampled_from(list(Origin)), st.text(max_size=8)), min_size=1, max_size=5))


@settings(max_examples=50)
@given(st.data())
def test_a_view_read_again_is_a_new_list_of_the_same_frozen_entries(data: st.DataObject) -> None:
    adapter = OPERATIONS["view"].result_adapter
    answer = dumps(data.draw(st.composite(entry_texts)()))
    first = codec.validate(adapter, loads(answer))
    first_entries = list(first)
    first.clear()  # the caller's own list: changing it changes no later read
    second = codec.validate(adapter, loads(answer))
    assert second == first_entries and second is not first
    assert all(a is b for a, b in zip(second, first_entries, strict=True))
    assert all(isinstance(e, ViewEntry) for e in second)
    second.clear()  # a list handed out again is the caller's too
    assert codec.validate(adapter, loads(answer)) == first_entries


@settings(max_examples=50)
@given(names, st.dictionaries(names, st.integers(-(2**53), 2**53), max_size=3))
def test_a_result_that_can_be_changed_is_built_anew_for_every_read(
        name: str, parameters: dict[str, int]) -> None:
    adapter = OPERATIONS["tool_schemas"].result_adapter
    answer = dumps([{"name": name, "parameters": parameters}])
    first = codec.validate(adapter, loads(answer))
    first[0].parameters["changed by the caller"] = True
    second = codec.validate(adapter, loads(answer))
    assert second == [ToolSchema(name=name, parameters=parameters)]
    assert second[0] is not first[0]


@pytest.mark.parametrize("text", ['{"enabled": "true"}', '{"enabled": 1}'])
def test_a_text_that_fails_the_strict_check_fails_it_every_time(text: str) -> None:
    adapter = OPERATIONS["set_runtime_context"].arguments[0].adapter
    for _ in range(2):
        with pytest.raises(ValidationError):
            codec.validate(adapter, loads(text)["enabled"])
    assert codec.validate(adapter, loads("true")) is True


def test_raw_values_read_again_keep_negative_zero_and_the_tags() -> None:
    adapter = OPERATIONS["set_host_depth"].arguments[0].adapter
    for text in ("-0", "-0", '{"$number": "NaN"}', '{"$number": "NaN"}'):
        value = codec.validate(adapter, loads(text))
        assert (math.isnan(value) if "NaN" in text else math.copysign(1, value) == -1)


@pytest.mark.parametrize(("kind", "shared"), [
    (list[ViewEntry], True), (ViewEntry | None, True), (list[str], True), (str, True),
    (type(None), True), (Origin, True), (list[ToolSchema], False), (AgentRef, False),
    (list[list[str]], False), (dict[str, str], False), (Any, False),
])
def test_only_results_nobody_can_change_are_shared(kind: Any, shared: bool) -> None:
    assert codec._shareable(TypeAdapter(kind)) is shared
