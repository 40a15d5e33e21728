"""The descriptor: the durable record of how a child was composed (FR-04).

It is stored in the child's session header at publication and read back on cold resume, where
its persona, tool filter, output schema, spawn policy and model are re-applied while the
resumed child is still unpublished. Keys follow the wire names: ``provider``, ``preset``,
``persona``, ``toolFilter``, ``outputSchema``, ``spawnPolicy``, ``model``; a control that was not
composed is left out (``persona: ""`` is kept: an explicit empty persona, PE-03; a child that runs
on its parent's model has no ``model``: it is its parent's again on resume, docs/rules.md#MO-02).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from subagent_tck.spec import ErrorCode, TckError


def check_output_schema(value: object) -> dict[str, Any]:
    """A copy of a valid output schema: a JSON object schema with ``"type": "object"``; else
    INVALID_OUTPUT_SCHEMA (FR-03)."""
    problem = ""
    if not isinstance(value, Mapping) or value.get("type") != "object":
        problem = 'an output schema must be a JSON object schema with "type": "object"'
    else:
        try:
            copied: dict[str, Any] = json.loads(json.dumps(dict(value), allow_nan=False))
        except (TypeError, ValueError):
            problem = "an output schema must be plain JSON (objects, lists, strings, numbers)"
        else:
            return copied
    raise TckError(ErrorCode.INVALID_OUTPUT_SCHEMA, problem + "; fix the schema or drop it")


def filter_json(value: Mapping[str, Any]) -> dict[str, Any]:
    """The stored form of a validated tool filter: its lists copied, absent lists left out."""
    out: dict[str, Any] = {}
    for key in ("allow", "deny"):
        names = value.get(key)
        if names is not None:
            out[key] = list(names)
    return out


@dataclass(frozen=True)
class Descriptor:
    provider: str
    preset: str | None = None
    persona: str | None = None
    tool_filter: Mapping[str, Any] | None = None
    output_schema: Mapping[str, Any] | None = None
    spawn_policy: Mapping[str, Any] | None = None
    model: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"provider": self.provider}
        if self.preset is not None:
            data["preset"] = self.preset
        if self.persona is not None:
            data["persona"] = self.persona
        if self.tool_filter is not None:
            data["toolFilter"] = dict(self.tool_filter)
        if self.output_schema is not None:
            data["outputSchema"] = dict(self.output_schema)
        if self.spawn_policy is not None:
            data["spawnPolicy"] = dict(self.spawn_policy)
        if self.model is not None:
            data["model"] = self.model
        return data

    @classmethod
    def from_json(cls, data: object, session: str = "") -> Descriptor:
        """Read a stored descriptor; one of the wrong shape is NOT_RESUMABLE."""
        if (
            not isinstance(data, Mapping)
            or not isinstance(data.get("provider"), str)
            or not isinstance(data.get("preset"), (str, type(None)))
            or not isinstance(data.get("persona"), (str, type(None)))
            or not isinstance(data.get("toolFilter"), (Mapping, type(None)))
            or not isinstance(data.get("outputSchema"), (Mapping, type(None)))
            or not isinstance(data.get("spawnPolicy"), (Mapping, type(None)))
            or not isinstance(data.get("model"), (str, type(None)))
        ):
            raise TckError(
                ErrorCode.NOT_RESUMABLE,
                f"session {session}: the stored descriptor is malformed; it needs a provider "
                "name and optional preset, persona, toolFilter, outputSchema, spawnPolicy, "
                "model",
                {"session": session},
            )
        return cls(
            data["provider"],
            data.get("preset"),
            data.get("persona"),
            data.get("toolFilter"),
            data.get("outputSchema"),
            data.get("spawnPolicy"),
            data.get("model"),
        )
