"""The calls a tool's advertised schema admits (conformance/engine/checks/_tool_arguments.py):
which parameters are drawn, which are hand-written examples, and what an untrusted schema
that cannot be drawn from becomes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import validate

from subagent_tck.conformance.engine.checks._tool_arguments import extra_parameters


def tool(extra: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"description": {"type": "string"}, "prompt": {"type": "string"}, **extra},
        "required": ["description", "prompt", *required],
    }


def test_a_schema_of_description_and_prompt_alone_has_no_extra_parameter() -> None:
    extras = extra_parameters(tool({}))
    assert extras.names == [] and extras.examples() == [] and extras.undrawable == ()


def test_an_optional_boolean_is_an_explicit_example_both_ways() -> None:
    extras = extra_parameters(tool({"run_in_background": {"type": "boolean"}}))
    assert extras.names == ["run_in_background"]
    assert extras.examples() == [{"run_in_background": True}, {"run_in_background": False}]


def test_a_required_extra_parameter_is_always_drawn_and_no_example_invents_it() -> None:
    extras = extra_parameters(tool({"priority": {"type": "integer", "minimum": 1},
                                    "detach": {"type": "boolean"}}, required=("priority",)))
    assert extras.examples() == []

    @settings(max_examples=30, database=None)
    @given(extras.strategy())
    def drawn(arguments: dict[str, Any]) -> None:
        assert isinstance(arguments["priority"], int) and arguments["priority"] >= 1
        assert set(arguments) <= {"priority", "detach"}

    drawn()


def test_a_parameter_whose_schema_is_invalid_or_unsatisfiable_is_named_not_drawn() -> None:
    extras = extra_parameters(tool({"broken": {"type": "bogus"}, "none": {"enum": []},
                                    "odd": "not a schema", "fine": {"type": "string"}}))
    assert extras.names == ["fine"]
    assert extras.undrawable == ("broken", "none", "odd")


def test_parameters_that_are_not_an_object_schema_give_no_extra_parameter() -> None:
    assert extra_parameters({"properties": ["description"]}).names == []
    assert extra_parameters({}).names == []


EXTRA = st.dictionaries(
    st.text(min_size=1, max_size=8).filter(lambda n: n not in ("description", "prompt")),
    st.sampled_from([{"type": "boolean"}, {"type": "integer", "maximum": 9},
                     {"enum": ["a", 1, None]}, {"type": "string", "maxLength": 3},
                     {"type": "array", "items": {"type": "boolean"}, "maxItems": 2}]),
    max_size=3,
)


@settings(max_examples=25, database=None, deadline=None)
@given(EXTRA, st.data())
def test_every_drawn_call_is_one_the_advertised_schema_admits(
        extra: dict[str, Any], data: st.DataObject) -> None:
    required = tuple(sorted(extra)[:1])
    schema = tool(extra, required)
    arguments = data.draw(extra_parameters(schema).strategy())
    validate({"description": "d", "prompt": "p", **arguments}, schema)
    assert set(required) <= set(arguments)
