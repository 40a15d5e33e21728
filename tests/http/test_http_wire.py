"""The wire's codec and route table (conformance/transports/wire.py)."""

from __future__ import annotations

import inspect
import math
from typing import Any, Protocol

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core.protocol import (
    PROTOCOL_VERSION,
    DeploymentConfig,
    PresetSpec,
    SessionHeader,
    StartRequest,
    ToolSpec,
    ViewEntry,
)
from subagent_tck.conformance.core.target import Deployment
from subagent_tck.conformance.transports.wire import (
    BY_SEGMENT,
    OBSERVERS,
    OPERATIONS,
    Malformed,
    camel,
    check_protocol,
    deployment_operations,
    dumps,
    kebab,
    loads,
    to_json,
)
from subagent_tck.spec import ErrorCode, TckError, check_depth, read_json_number

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.floats(allow_nan=True),
    st.text(max_size=8), st.just(-0.0),
)
keys = st.one_of(st.text(max_size=6), st.sampled_from(["$number", "$literal"]))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(keys, inner, max_size=3)),
    max_leaves=12,
)


def same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN and the sign of zero counted."""
    if isinstance(a, float) and isinstance(b, (int, float)):
        if math.isnan(a):
            return isinstance(b, float) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, float(b))
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=150)
@given(values)
def test_every_json_value_survives_the_wire_nan_infinity_and_negative_zero_included(
    value: Any,
) -> None:
    assert same(value, loads(dumps(value)))


@settings(max_examples=50)
@given(values)
def test_the_wire_text_is_standard_json_without_nan_or_infinity_tokens(value: Any) -> None:
    import json

    json.loads(dumps(value), parse_constant=lambda token: pytest.fail(f"raw {token}"))


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", '{"a": NaN}', "[1, Infinity]"])
def test_a_raw_non_finite_token_is_malformed(text: str) -> None:
    with pytest.raises(Malformed, match="not a JSON number"):
        loads(text)


@pytest.mark.parametrize("text", ["{", "", "[1,]", "{'a': 1}", b"\xff\xfe"])
def test_text_that_is_not_json_is_malformed(text: str | bytes) -> None:
    with pytest.raises(Malformed):
        loads(text)


def test_a_malformed_tag_is_malformed() -> None:
    with pytest.raises(Malformed, match="tagged number"):
        loads('{"$number": "nan"}')
    with pytest.raises(Malformed, match="literal"):
        loads('{"$literal": 3}')


@pytest.mark.parametrize(
    "text", ["-0", "-0.0", "0", "1", "1.0", "1e2", "9007199254740991", "9007199254740992",
             "9007199254740993", "18446744073709551617", "1e400", "-1e400", "0.5", "-3"],
)
def test_numbers_read_as_javascript_reads_them_as_the_depth_oracle_does(text: str) -> None:
    ours = loads(text)
    oracle = read_json_number(text)
    assert check_depth(ours) == check_depth(oracle)
    assert same(float(oracle), float(ours))


def test_negative_zero_stays_negative_and_big_integers_become_doubles() -> None:
    assert math.copysign(1, loads("-0")) == -1
    assert loads("9007199254740993") == 2.0**53 and isinstance(loads("9007199254740993"), float)
    assert loads("9007199254740992") == 2**53 and isinstance(loads("9007199254740992"), int)
    assert loads("42") == 42 and isinstance(loads("42"), int)


def test_a_model_sends_the_raw_fields_it_was_given_and_leaves_the_others_absent() -> None:
    asked = StartRequest(parent="a", provider="spawn", prompt="p", maxDepth=None)
    wire = to_json(asked)
    assert wire == {"parent": "a", "provider": "spawn", "prompt": "p", "maxDepth": None}
    assert "persona" not in wire  # absent differs from null
    assert to_json(ToolSpec(name="t")) == {"name": "t", "description": "",
                                           "parameters": {"type": "object"}}
    assert to_json(DeploymentConfig())["hostDepth"] == 1  # a raw default that is not absence
    assert to_json(SessionHeader(session="s"))["delegationDepth"] == 0
    # a typed field marked sent-when-set: a target that does not declare presetTools never
    # sees a preset's tools (DSH refuses a preset field it does not know)
    assert to_json(PresetSpec(name="p")) == {"name": "p"}
    assert to_json(PresetSpec(name="p", tools=[ToolSpec(name="t")]))["tools"] == [
        {"name": "t", "description": "", "parameters": {"type": "object"}}]


def test_a_value_that_json_cannot_carry_is_refused_before_sending() -> None:
    with pytest.raises(TypeError, match="set"):
        dumps({"a": {1, 2}})
    with pytest.raises(TypeError, match="keys"):
        dumps({1: "a"})


def test_every_deployment_method_but_close_has_one_route() -> None:
    methods = {n for n, f in inspect.getmembers(Deployment, inspect.isfunction)
               if not n.startswith("_")}
    assert set(OPERATIONS) == methods - {"close"}
    assert len(BY_SEGMENT) == len(OPERATIONS)
    assert set(OBSERVERS) <= set(OPERATIONS), "OBSERVERS names a method the protocol lost"
    for name, operation in OPERATIONS.items():
        assert operation.path == f"/v1/deployments/{{id}}/{kebab(name)}"


def test_a_method_added_to_the_protocol_becomes_a_route_with_its_arguments() -> None:
    class Extended(Protocol):
        def set_budget(self, agent: str, *, tokens_left: int = 5) -> ViewEntry: ...

    operation = deployment_operations(Extended)["set_budget"]
    assert operation.path == "/v1/deployments/{id}/set-budget"
    assert [(a.wire, a.required) for a in operation.arguments] == [("agent", True),
                                                                    ("tokensLeft", False)]
    assert operation.bind(("a1",), {}) == {"agent": "a1", "tokensLeft": 5}
    assert operation.decode_arguments({"agent": "a1", "tokensLeft": 2}) == {
        "agent": "a1", "tokens_left": 2}
    assert operation.decode_result({"name": "x", "origin": "local"}).name == "x"


def test_arguments_are_refused_as_invalid_request_when_unknown_missing_or_mistyped() -> None:
    register = OPERATIONS["register_tool"]
    for body, words in [({"tool": {"name": "a"}, "bogus": 1}, "bogus"), ({}, "'tool'"),
                        ([], "JSON object"), ({"tool": {"name": 3}}, "'tool' is malformed: name")]:
        with pytest.raises(TckError, match=words) as caught:
            register.decode_arguments(body)
        assert caught.value.code is ErrorCode.INVALID_REQUEST


def test_json_types_are_not_coerced_but_raw_values_are_kept_as_read() -> None:
    with pytest.raises(TckError):
        OPERATIONS["set_runtime_context"].decode_arguments({"enabled": "true"})
    kwargs = OPERATIONS["set_host_depth"].decode_arguments({"value": loads("-0")})
    assert math.copysign(1, kwargs["value"]) == -1
    start = OPERATIONS["start"].decode_arguments(
        loads('{"request": {"parent": "a", "provider": "p", "prompt": "x", '
              '"maxDepth": {"$number": "NaN"}}}'))["request"]
    assert math.isnan(start.maxDepth) and "persona" not in start.model_fields_set


def test_wire_names_are_camel_case_and_paths_kebab_case() -> None:
    assert camel("has_runtime_depth") == "hasRuntimeDepth" and camel("agent") == "agent"
    assert kebab("put_session_header") == "put-session-header"


@pytest.mark.parametrize("version", ["1.0", "1.7", "1.2.3"])
def test_a_target_of_the_same_major_protocol_version_is_accepted(version: str) -> None:
    check_protocol(version, "the target")


@pytest.mark.parametrize("version", ["2.0", "0.9", "one", ""])
def test_another_major_protocol_version_is_a_protocol_error_naming_both(version: str) -> None:
    with pytest.raises(TckError) as caught:
        check_protocol(version, "the target")
    assert caught.value.code is ErrorCode.PROTOCOL_ERROR
    assert repr(version) in caught.value.message or version in caught.value.message
    assert PROTOCOL_VERSION in caught.value.message


def _reference_to_json(value: Any) -> Any:
    """The codec's rules written plainly: what the fast ``to_json`` must keep giving."""
    from enum import Enum

    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return {name: _reference_to_json(getattr(value, name))
                for name, field in type(value).model_fields.items()
                if not (field.annotation is Any and field.default is None
                        and name not in value.model_fields_set)}
    if isinstance(value, Enum):
        return _reference_to_json(value.value)
    if isinstance(value, float) and not math.isfinite(value):
        return {"$number": "NaN" if math.isnan(value) else
                ("Infinity" if value > 0 else "-Infinity")}
    if isinstance(value, dict):
        items = {k: _reference_to_json(v) for k, v in value.items()}
        return {"$literal": items} if len(items) == 1 and next(iter(items)) in (
            "$number", "$literal") else items
    if isinstance(value, (list, tuple)):
        return [_reference_to_json(v) for v in value]
    return value


@settings(max_examples=100)
@given(values)
def test_the_encoding_of_json_values_follows_the_codec_rules(value: Any) -> None:
    assert same(_reference_to_json(value), to_json(value))


def test_models_enums_and_tuples_encode_by_the_codec_rules() -> None:
    from subagent_tck.spec import PresentationMode

    samples = [
        StartRequest(parent="a", provider="p", prompt="x", maxDepth=math.inf),
        StartRequest(parent="a", provider="p", prompt="x"),
        DeploymentConfig(tools=[ToolSpec(name="t", parameters={"$number": "x"})]),
        {"mode": PresentationMode.BOTH, "pair": (1, -0.0), "views": [ViewEntry(
            name="n", origin="local")]},
    ]
    for sample in samples:
        assert same(_reference_to_json(sample), to_json(sample)), sample


def test_a_tag_written_with_an_escaped_dollar_is_still_a_tag() -> None:
    assert math.isnan(loads('{"\\u0024number": "NaN"}'))
    assert loads('{"\\u0024literal": {"$number": "NaN"}}') == {"$number": "NaN"}
    assert loads(' {"a": -0} ')["a"] == 0 and loads("[1] ") == [1]


def test_a_call_is_bound_as_python_binds_it() -> None:
    create = OPERATIONS["create_agent"]
    assert create.bind((), {}) == {"headerDepth": 0, "runtimeDepth": None,
                                   "hasRuntimeDepth": False}
    assert create.bind((), {}) is not create.bind((), {})  # a fresh body each call
    assert create.bind((2,), {"has_runtime_depth": True})["hasRuntimeDepth"] is True
    for args, kwargs, words in [((1, 2, 3, 4), {}, "takes 3"),
                                ((1,), {"header_depth": 2}, "multiple values"),
                                ((), {"bogus": 1}, "bogus")]:
        with pytest.raises(TypeError, match=words):
            create.bind(args, kwargs)
    with pytest.raises(TypeError, match="missing required argument 'name'"):
        OPERATIONS["lookup"].bind(("a1",), {})
