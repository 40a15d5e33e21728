"""An output schema is taken when its ``type`` merely contains "object" (breaks FR-03).

The host checks a schema with ``"object" in schema["type"]``: right for ``"object"``, wrong for
``["object", "null"]`` or ``"object "`` or ``"objects"``, which it installs as the child's
``structured_output`` instead of failing the start. A schema of another type (``"string"``,
the one invalid schema a fixed case would try) is still refused, so only drawn schemas find it
(docs/rules.md#FR-03: an invalid output schema fails the start).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from examples.providers._parts import reference_target
from subagent_tck.reference import Agent, ChildStart, structured_output_tool
from subagent_tck.spec import ErrorCode, TckError

BREAKS = "FR-03"


class LooseSchemaStart(ChildStart):
    def install_output_schema(self, agent: Agent, value: object) -> dict[str, Any] | None:
        if not isinstance(value, Mapping) or "type" not in value:
            return super().install_output_schema(agent, value)
        if "object" not in value["type"]:  # the bug: containment, not equality
            raise TckError(ErrorCode.INVALID_OUTPUT_SCHEMA, 'an output schema needs "type": '
                           '"object"')
        schema: dict[str, Any] = json.loads(json.dumps(dict(value)))
        agent.scope.add_local(structured_output_tool(agent, schema))
        return schema


def provider() -> Any:
    return reference_target("schema-type-contains-object", child_start_class=LooseSchemaStart)
