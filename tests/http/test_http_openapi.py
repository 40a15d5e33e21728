"""The driver API's OpenAPI document (conformance/transports/openapi.py,
docs/driver-api.openapi.json)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from subagent_tck.conformance.core.protocol import PROTOCOL_VERSION
from subagent_tck.conformance.transports.openapi import document, render, run
from subagent_tck.conformance.transports.wire import OPERATIONS

COMMITTED = Path(__file__).parents[2] / "docs" / "driver-api.openapi.json"
REGENERATE = "subagent-tck openapi --output docs/driver-api.openapi.json"


def test_the_committed_document_is_the_generated_one() -> None:
    assert COMMITTED.exists(), f"docs/driver-api.openapi.json is missing: run `{REGENERATE}`"
    assert COMMITTED.read_text(encoding="utf-8") == render(), (
        "docs/driver-api.openapi.json is stale (the driver protocol changed): regenerate it "
        f"from the project root with `{REGENERATE}` and commit the result")


def test_every_operation_of_the_protocol_is_a_path_with_its_arguments() -> None:
    doc = document()
    assert doc["openapi"] == "3.1.0" and doc["info"]["version"] == PROTOCOL_VERSION
    schemas = doc["components"]["schemas"]
    for operation in OPERATIONS.values():
        post = doc["paths"][operation.path]["post"]
        body = post["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        arguments = schemas[body.rsplit("/", 1)[1]]
        assert list(arguments["properties"]) == [a.wire for a in operation.arguments]
        assert arguments["additionalProperties"] is False
        assert set(post["responses"]) == {"200", "4XX", "5XX"}
    assert {"/v1/info", "/v1/deployments", "/v1/deployments/{id}"} <= set(doc["paths"])


def test_the_deployment_request_is_the_config_plus_the_gateway_url() -> None:
    schemas = document()["components"]["schemas"]
    request, config = schemas["DeploymentRequest"], schemas["DeploymentConfig"]
    assert set(request["properties"]) == set(config["properties"]) | {"gatewayUrl"}
    assert "gatewayUrl" in request["required"]


@pytest.mark.parametrize("name", sorted(document()["components"]["schemas"]))
def test_every_component_is_a_valid_json_schema(name: str) -> None:
    Draft202012Validator.check_schema(document()["components"]["schemas"][name])


def test_schemathesis_loads_the_document() -> None:
    import schemathesis

    schema = schemathesis.openapi.from_dict(document())
    labels = [result.ok().label for result in schema.get_all_operations()]
    # info, deploy, close, and the batch route beside one route per operation
    assert len(labels) == len(OPERATIONS) + 4 and "POST /v1/deployments/{id}/batch" in labels


def test_the_command_prints_the_document(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    assert run(argparse.Namespace(output=None)) == 0
    assert json.loads(capsys.readouterr().out) == document()
    assert run(argparse.Namespace(output=str(tmp_path / "api.json"))) == 0
    assert (tmp_path / "api.json").read_text(encoding="utf-8") == render()


def test_the_adapter_guide_documents_every_operation() -> None:
    guide = (COMMITTED.parent / "driver-api.md").read_text(encoding="utf-8")
    missing = [op.segment for op in OPERATIONS.values() if f"| `{op.segment}` |" not in guide]
    assert not missing, f"docs/driver-api.md lacks a row for {missing}: add it to the table"
