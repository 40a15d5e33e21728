"""The certificate: its committed schema is fresh, real output validates, and it records what
a reader needs (versions, identity, evidence, replay)."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest

from subagent_tck.conformance.core.certificate import REGENERATE, Certificate, json_schema
from subagent_tck.conformance.core.certificate_assembly import merge, replay_command
from subagent_tck.conformance.core.outcome import Evidence, Failure, Outcome
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.report.report_json import render
from subagent_tck.spec import Edition, catalogue_hash

SCHEMA = Path(__file__).parents[2] / "conformance" / "core" / "certificate.schema.json"


def test_the_committed_schema_is_generated_from_the_model() -> None:
    assert SCHEMA.read_text(encoding="utf-8") == json_schema(), (
        f"conformance/core/certificate.schema.json is stale: run `{REGENERATE}`")


@pytest.mark.parametrize("behaviour", [
    {},
    {("TF-92", "spawn"): "break", ("CA-91", "acp"): "crash", ("FR-91", None): "unconsumed",
     ("DE-91", "spawn"): "silent"},
])
def test_real_json_output_validates_against_the_committed_schema(
    fakes: ModuleType, behaviour: dict[tuple[str, str | None], str],
) -> None:
    cert = certify(fakes.FakeTarget(behaviour), RunConfig(target_spec="python:m:f", seed=7))
    document = json.loads(render(cert))
    jsonschema.validate(document, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert Certificate.model_validate(document) == cert


def test_the_certificate_records_versions_identity_and_run_settings(fakes: ModuleType) -> None:
    cert = certify(fakes.FakeTarget(), RunConfig(target_spec="python:m:f", seed=42,
                                                 profile="thorough"))
    assert cert.kit_version == importlib.metadata.version("subagent-tck")
    assert cert.catalogue_hash == catalogue_hash()
    assert (cert.edition, cert.profile, cert.max_examples, cert.seed) == (
        Edition.PRESET_COMPOSITION, "thorough", 200, 42)
    assert cert.target.spec == "python:m:f" and cert.target.info.name == "fake"
    assert cert.capabilities == {p.name: p.capabilities for p in fakes.default_providers()}
    assert cert.duration >= 0 and cert.started_at.tzinfo is not None
    assert all(run.duration >= 0 for run in cert.checks)
    assert sum(cert.counts.values()) == len(cert.rules) == len(fakes.RULES)


def test_a_failure_carries_expected_observed_example_and_replay(fakes: ModuleType) -> None:
    cert = certify(fakes.FakeTarget({("DE-92", "spawn"): "break"}),
                   RunConfig(target_spec="python:my mod:f", seed=3, profile="thorough"))
    result = cert.rule("DE-92")
    failure = result.failures[0]
    assert (failure.rule, failure.check, failure.provider) == ("DE-92", "fake-depth", "spawn")
    assert failure.title == "DE-92 fake-92"
    assert result.replay == ("subagent-tck certify --target 'python:my mod:f' --rule DE-92 "
                             "--seed 3 --profile thorough")


def test_the_replay_names_the_edition_only_when_it_is_not_the_default() -> None:
    assert "--edition" not in replay_command("reference", "TF-01", 0,
                                             Edition.PRESET_COMPOSITION, "ci")
    assert replay_command("reference", "EN-03", 5, Edition.REQUEST_CONTROLS, "ci") == (
        "subagent-tck certify --target reference --rule EN-03 --seed 5 "
        "--edition request-controls")


def _failure(error: bool) -> Failure:
    return Failure(rule="TF-01", check="c", title="t", message="m", error=error)


@pytest.mark.parametrize(("outcomes", "expected"), [
    ([], Outcome.NOT_RUN),
    ([Outcome.PASS, Outcome.NOT_RUN], Outcome.PASS),
    ([Outcome.NOT_APPLICABLE, Outcome.PASS], Outcome.PASS),
    ([Outcome.PASS, Outcome.ERROR], Outcome.ERROR),
    ([Outcome.ERROR, Outcome.FAIL, Outcome.PASS], Outcome.FAIL),
    ([Outcome.NOT_APPLICABLE, Outcome.NOT_RUN], Outcome.NOT_RUN),
    ([Outcome.NOT_APPLICABLE, Outcome.NOT_APPLICABLE], Outcome.NOT_APPLICABLE),
])
def test_evidence_of_several_checks_merges_failures_first_then_passes(
    outcomes: list[Outcome], expected: Outcome,
) -> None:
    evidence = [Evidence(o, f"r{i}", [_failure(o == Outcome.ERROR)]
                         if o in (Outcome.FAIL, Outcome.ERROR) else [])
                for i, o in enumerate(outcomes)]
    merged = merge(evidence)
    assert merged.outcome == expected
    assert len(merged.failures) == sum(len(e.failures) for e in evidence)


def test_a_partial_run_of_a_should_rule_passes_when_it_passes_and_fails_when_it_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """TF-16 is a SHOULD rule: the capability verdicts weigh MUST rules only, so a partial run
    of it alone once read as "none of the selected rules applies" (NOT-RUN, exit 1) even when
    it passed; its replay line of a failure must fail."""
    from subagent_tck.conformance.core.certificate import Verdict
    from subagent_tck.conformance.transports.targets import load_target

    root = Path(__file__).resolve().parents[2]
    monkeypatch.syspath_prepend(str(root))  # examples.providers
    for spec, want in (("reference", Verdict.PASSED),
                       ("python:examples.providers.guidance_kept_where_hidden:provider",
                        Verdict.FAILED)):
        target = load_target(spec)
        try:
            cert = certify(target, RunConfig(target_spec=spec, seed=0, rules=("TF-16",)))
        finally:
            target.close()
        assert cert.verdict == want, (spec, cert.verdict, cert.rule("TF-16").outcome)
        assert cert.rule("TF-16").outcome == (Outcome.PASS if want == Verdict.PASSED
                                              else Outcome.FAIL)
