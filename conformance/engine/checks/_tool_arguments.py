"""The calls a tool's advertised schema admits beyond the kit's own two arguments.

The kit's scripted ``subagent`` calls carry ``description`` and ``prompt``. A target's tool may
offer the model more parameters (a scheduling flag, a priority); a rule about "a call" holds for
every call the schema admits (docs/rules.md#st-07), so a check draws the extra parameters from
the schema the model was offered: optional ones present or absent, required ones always, each
value drawn from the parameter's own JSON Schema (hypothesis-jsonschema). Booleans are also run
both ways as explicit examples, since one flag is the commonest switch of behaviour.

The schema is target-supplied text: a parameter whose schema is not a valid JSON Schema (or one
no value satisfies) cannot be drawn from; it is reported by name, never guessed at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

#: The arguments the kit's scripts always send (docs/rules.md#st-01).
KIT_ARGUMENTS = ("description", "prompt")


@dataclass(frozen=True)
class ExtraParameters:
    """The parameters of one advertised schema outside :data:`KIT_ARGUMENTS`."""

    optional: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: names whose schema cannot be drawn from (not a valid JSON Schema, or unsatisfiable)
    undrawable: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        return sorted([*self.optional, *self.required])

    def examples(self) -> list[dict[str, Any]]:
        """Hand-written cases: each optional boolean set true, then false (only when no other
        parameter is required: a required value is drawn, not invented)."""
        if self.required:
            return []
        return [{name: value} for name, schema in sorted(self.optional.items())
                if schema.get("type") == "boolean" for value in (True, False)]

    def strategy(self) -> st.SearchStrategy[dict[str, Any]]:
        """Extra arguments drawn from the schema: required ones always, optional ones or not."""
        return st.fixed_dictionaries(
            {name: _values(schema) for name, schema in sorted(self.required.items())},
            optional={name: _values(schema) for name, schema in sorted(self.optional.items())},
        )


def extra_parameters(parameters: Mapping[str, Any]) -> ExtraParameters:
    """The extra parameters of a tool's ``parameters`` object, split as the schema says."""
    props = parameters.get("properties")
    if not isinstance(props, Mapping):
        return ExtraParameters()
    listed = parameters.get("required")
    required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
    optional: dict[str, dict[str, Any]] = {}
    needed: dict[str, dict[str, Any]] = {}
    undrawable: list[str] = []
    for name, schema in props.items():
        if not isinstance(name, str) or name in KIT_ARGUMENTS:
            continue
        if not isinstance(schema, Mapping) or not _drawable(dict(schema)):
            undrawable.append(name)
            continue
        (needed if name in required else optional)[name] = dict(schema)
    return ExtraParameters(optional, needed, tuple(sorted(undrawable)))


def _values(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    from hypothesis_jsonschema import from_schema

    return from_schema(schema)


def _drawable(schema: dict[str, Any]) -> bool:
    """Whether values can be drawn from ``schema``: a valid JSON Schema some value satisfies."""
    from hypothesis.errors import InvalidArgument
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema).check_schema(schema)
        return not _values(schema).is_empty
    except (SchemaError, InvalidArgument, TypeError, ValueError, RecursionError):
        return False
