"""JUnit XML for CI dashboards: one ``<testcase>`` per rule id, ``classname`` the family.

``fail`` and ``unexpected-pass`` are ``<failure>``; ``error`` is ``<error>``; ``not-applicable``,
``not-run`` and ``expected-fail`` (baseline) are ``<skipped>`` with the reason. A failure's body
carries expected, observed, the shrunk example, the gateway transcript and the replay command.
SHOULD rules are reported like MUST ones; the certificate's verdicts say what is decisive.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import IO, Any

from .certificate import Certificate, RuleResult
from .outcome import Failure, Outcome
from .runner import Event, RunFinished


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def _body(result: RuleResult) -> str:
    parts = []
    for failure in result.failures:
        parts.append(_failure_text(failure))
    if result.replay:
        parts.append(f"replay: {result.replay}")
    return "\n\n".join(parts)


def _failure_text(failure: Failure) -> str:
    lines = [f"[{failure.provider or 'target'}] {failure.message}  (check {failure.check})"]
    if failure.expected is not None:
        lines.append(f"expected: {_dump(failure.expected)}")
    if failure.observed is not None:
        lines.append(f"observed: {_dump(failure.observed)}")
    if failure.example:
        lines.append(f"example: {failure.example}")
    if failure.replay:
        lines.append(f"replay this failure: {failure.replay}")
    if failure.transcript:
        lines.append(f"transcript: {_dump(failure.transcript)}")
    if failure.traceback:
        lines.append(failure.traceback.rstrip())
    return "\n".join(lines)


def to_element(cert: Certificate) -> ET.Element:
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    suite = ET.Element("testsuite", name=f"subagent-tck {cert.target.spec}",
                       tests=str(len(cert.rules)), time=f"{cert.duration:.3f}",
                       timestamp=cert.started_at.isoformat())
    props = ET.SubElement(suite, "properties")
    for name, value in (("edition", cert.edition.value), ("seed", str(cert.seed)),
                        ("profile", cert.profile), ("verdict", cert.verdict.value),
                        ("kit_version", cert.kit_version),
                        ("catalogue_hash", cert.catalogue_hash)):
        ET.SubElement(props, "property", name=name, value=value)
    for v in cert.verdicts:
        ET.SubElement(props, "property",
                      name=f"verdict.{v.provider}.{v.capability.value if v.capability else 'core'}",
                      value=v.verdict.value)
    durations: dict[str, float] = {}
    for run in cert.checks:
        for rule in run.rules:
            durations[rule] = durations.get(rule, 0.0) + run.duration
    for result in cert.rules:
        case = ET.SubElement(suite, "testcase", classname=result.family.value,
                             name=result.title, time=f"{durations.get(result.id, 0.0):.3f}")
        first = result.failures[0].message if result.failures else result.outcome.value
        if result.outcome in (Outcome.FAIL, Outcome.UNEXPECTED_PASS):
            counts["failures"] += 1
            node = ET.SubElement(case, "failure", message=first, type=result.outcome.value)
            node.text = _body(result)
        elif result.outcome == Outcome.ERROR:
            counts["errors"] += 1
            node = ET.SubElement(case, "error", message=first, type="error")
            node.text = _body(result)
        elif result.outcome in (Outcome.NOT_APPLICABLE, Outcome.NOT_RUN, Outcome.EXPECTED_FAIL):
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=f"{result.outcome.value}: {result.reasons()}")
    totals = {key: str(value) for key, value in counts.items()}
    for key, total in totals.items():
        suite.set(key, total)
    root = ET.Element("testsuites", {"name": "subagent-tck", "tests": str(len(cert.rules)),
                                     **totals, "time": f"{cert.duration:.3f}"})
    root.append(suite)
    return root


def render(cert: Certificate) -> str:
    root = to_element(cert)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


class JUnitReporter:
    """A handler writing JUnit XML to ``stream`` when the run finishes."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.stream.write(render(event.certificate))
            self.stream.flush()
