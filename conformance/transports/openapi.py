"""The driver API as an OpenAPI 3.1 document (``subagent-tck openapi``).

Generated from :mod:`.wire`'s route table and the pydantic models of :mod:`.protocol`, so it
cannot drift from what the kit sends and accepts; the committed copy is
``docs/driver-api.openapi.json`` and a test fails when it is stale
(docs/architecture.md). Schemas are pydantic's *validation* schemas: the kit validates a target's
answers with exactly these. docs/driver-api.md is the prose for adapter authors.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from ..core.protocol import PROTOCOL_VERSION, DeploymentConfig, ErrorBody, TargetInfo
from .wire import (
    BATCH_SEGMENT,
    DEPLOYMENT_PATH,
    DEPLOYMENTS_PATH,
    GATEWAY_FIELD,
    INFO_PATH,
    MAX_BATCH,
    OPERATIONS,
    camel,
)

REF = "#/components/schemas/{model}"
DOCUMENT = Path("docs") / "driver-api.openapi.json"

DESCRIPTION = (
    "The HTTP driver API of subagent-tck: an adapter implements it around a runtime so that "
    "the kit can certify the runtime in any language. Every deployment operation is a POST "
    "whose JSON body holds the operation's arguments and whose 200 answer is its result "
    "(null when it has none). A refusal is a 4xx answer with an ErrorBody; a 5xx means the "
    "target crashed. Numbers are read as JavaScript reads JSON; NaN and Infinity travel as "
    '{"$number": "NaN" | "Infinity" | "-Infinity"} and a raw NaN/Infinity token makes a '
    "request malformed (400 INVALID_REQUEST). Schemas without a type are raw values the "
    "target must judge itself; such a field left out is absent, which differs from null. "
    "See docs/driver-api.md."
)


class _Schemas:
    """Collects component schemas while it turns types into ``$ref``\\ s."""

    def __init__(self) -> None:
        self.components: dict[str, Any] = {}

    def of(self, annotation: Any) -> dict[str, Any]:
        schema = TypeAdapter(annotation).json_schema(ref_template=REF, mode="validation")
        self.components.update(schema.pop("$defs", {}))
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return self.named(annotation.__name__, schema)
        return schema

    def named(self, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        self.components[name] = schema
        return {"$ref": REF.format(model=name)}


def _errors(schemas: _Schemas) -> dict[str, Any]:
    body = {"content": {"application/json": {"schema": schemas.of(ErrorBody)}}}
    return {
        "4XX": {"description": "Refused: nothing changed. The code says why.", **body},
        "5XX": {"description": "The target crashed (the kit reports an error).", **body},
    }


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _pascal(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def _batch(schemas: _Schemas, id_parameter: dict[str, Any],
           errors: dict[str, Any]) -> dict[str, Any]:
    """The optional batch route (docs/driver-api.md#batch)."""
    call = {"type": "object", "title": "BatchCall", "additionalProperties": False,
            "required": ["operation"], "properties": {
                "operation": {"type": "string", "description": "An operation's path segment "
                              "(register-tool, view, ...); not batch itself."},
                "arguments": {"type": "object", "description": "Its arguments, as the "
                              "operation's own route takes them (default: none)."}}}
    body = {"type": "object", "title": "BatchRequest", "additionalProperties": False,
            "required": ["calls"], "properties": {"calls": {
                "type": "array", "maxItems": MAX_BATCH, "items": schemas.named("BatchCall", call)}}}
    entry = {"title": "BatchEntry", "oneOf": [
        {"type": "object", "additionalProperties": False, "required": ["result"],
         "properties": {"result": {"description": "The operation's result."}}},
        {"type": "object", "additionalProperties": False, "required": ["error"],
         "properties": {"error": schemas.of(ErrorBody)}}]}
    answer = {"type": "object", "title": "BatchResults", "additionalProperties": False,
              "required": ["results"], "properties": {"results": {
                  "type": "array", "items": schemas.named("BatchEntry", entry)}}}
    return {
        "operationId": "batch",
        "summary": "Several operations in one request, in order, each answered as it would be "
                   "alone (optional: a target may answer 404 and be driven call by call).",
        "parameters": [id_parameter],
        "requestBody": {"required": True, **_json(schemas.named("BatchRequest", body))},
        "responses": {"200": {"description": "One entry per call, in order.",
                              **_json(schemas.named("BatchResults", answer))}, **errors},
    }


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of driver protocol :data:`~.protocol.PROTOCOL_VERSION`."""
    schemas = _Schemas()
    errors = _errors(schemas)
    id_parameter = {"name": "id", "in": "path", "required": True,
                    "description": "The deployment id answered by POST /v1/deployments.",
                    "schema": {"type": "string"}}
    paths: dict[str, Any] = {}

    paths[INFO_PATH] = {"get": {
        "operationId": "info", "summary": "Describe the target: providers, editions, protocol.",
        "responses": {"200": {"description": "The target.", **_json(schemas.of(TargetInfo))},
                      **errors}}}

    config = schemas.of(DeploymentConfig)
    base = schemas.components["DeploymentConfig"] if "$ref" in config else config
    request = json.loads(json.dumps(base))
    request["title"] = "DeploymentRequest"
    request["properties"][GATEWAY_FIELD] = {
        "type": "string", "format": "uri",
        "description": "Base URL of the kit's model gateway for this deployment: agents post "
                       "to {gatewayUrl}/agents/{agentId}/v1/chat/completions."}
    request["required"] = sorted({*request.get("required", []), GATEWAY_FIELD})
    created = {"type": "object", "title": "DeploymentCreated", "additionalProperties": False,
               "required": ["deployment"], "properties": {"deployment": {"type": "string"}}}
    paths[DEPLOYMENTS_PATH] = {"post": {
        "operationId": "deploy",
        "summary": "Create a fresh deployment (one host runtime) whose model is the gateway.",
        "requestBody": {"required": True, **_json(schemas.named("DeploymentRequest", request))},
        "responses": {"201": {"description": "Created.",
                              **_json(schemas.named("DeploymentCreated", created))},
                      **errors}}}

    paths[DEPLOYMENT_PATH] = {"delete": {
        "operationId": "close", "summary": "Close the deployment and release what it holds.",
        "parameters": [id_parameter],
        "responses": {"200": {"description": "Closed.", **_json({"type": "null"})}, **errors}}}

    for operation in OPERATIONS.values():
        properties = {a.wire: schemas.of(a.annotation) for a in operation.arguments}
        body = {"type": "object", "title": f"{_pascal(operation.name)}Arguments",
                "additionalProperties": False, "properties": properties,
                "required": [a.wire for a in operation.arguments if a.required]}
        result = {"type": "null"} if operation.returns_nothing else schemas.of(operation.result)
        summary, _, rest = operation.doc.partition("\n\n")
        entry: dict[str, Any] = {
            "operationId": camel(operation.name),
            "summary": " ".join(summary.split()) or f"Deployment.{operation.name}",
            "parameters": [id_parameter],
            "requestBody": {"required": operation.needs_body, **_json(
                schemas.named(f"{_pascal(operation.name)}Arguments", body))},
            "responses": {"200": {"description": "The result.", **_json(result)}, **errors},
        }
        if rest.strip():
            entry["description"] = " ".join(rest.split())
        if operation.observes:
            entry["x-observes"] = True
        paths[operation.path] = {"post": entry}

    paths[f"{DEPLOYMENT_PATH}/{BATCH_SEGMENT}"] = {"post": _batch(schemas, id_parameter, errors)}

    schemas.components["TaggedNumber"] = {
        "title": "TaggedNumber", "type": "object", "additionalProperties": False,
        "required": ["$number"],
        "properties": {"$number": {"enum": ["NaN", "Infinity", "-Infinity"]}},
        "description": "How a non-finite number travels wherever a raw value may stand.",
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "subagent-tck driver API", "version": PROTOCOL_VERSION,
                 "description": DESCRIPTION},
        "servers": [{"url": "http://127.0.0.1:{port}",
                     "variables": {"port": {"default": "8080"}}}],
        "paths": paths,
        "components": {"schemas": dict(sorted(schemas.components.items()))},
    }


def render() -> str:
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", metavar="FILE",
                        help=f"write the document there (the committed copy is {DOCUMENT})")


def run(args: argparse.Namespace) -> int:
    """``subagent-tck openapi``: print (or write) the document."""
    text = render()
    if getattr(args, "output", None):
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
