"""JUnit XML for CI dashboards: one ``<testcase>`` per rule, named by :func:`testcase_name`
(classname ``subagent-tck``, name the rule id: the pytest plugin's items get the same names).
The file is valid against the common Jenkins JUnit schema (``tests/reports/junit-10.xsd``).

A rule that makes the run fail is red, so the file and the exit code agree
(docs/certify.md#outputs): ``error`` is ``<error>``; ``fail``, ``unexpected-pass`` and a MUST
rule that did not run are ``<failure>``. What is reported but not decisive is ``<skipped>``
with its reason: ``not-applicable``, ``expected-fail`` (baseline), ``not-run`` of a rule a
partial run did not select, and a failing SHOULD rule. A failure's body carries expected,
observed, the cause, the shrunk example, the gateway transcript, the traceback and the replay
command. Testcase times share each check run's time among the rules it decided.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from subagent_tck.spec import Level

from ..core.certificate import Certificate, RuleResult
from ..core.outcome import Outcome
from ..core.untrusted import for_xml
from .report_failure import failure_lines


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def _body(result: RuleResult) -> str:
    parts = []
    for failure in result.failures:
        parts.append("\n".join(failure_lines(failure, "", whole=True)))
    if result.replay:
        parts.append(f"replay: {result.replay}")
    return "\n\n".join(parts)


#: The ``classname`` of every testcase, from the CLI and the pytest plugin alike.
SUITE = "subagent-tck"


def testcase_name(rule_id: str) -> tuple[str, str]:
    """The one JUnit naming scheme (``classname``, ``name``) of a rule's testcase, shared by
    ``certify --format junit`` and the pytest plugin (whose item ``subagent-tck::TF-07``
    pytest's junitxml names the same way): the kit, and the rule id."""
    return SUITE, rule_id


def pytest_nodeid(rule_id: str) -> str:
    """The pytest node id whose junitxml testcase is :func:`testcase_name`'s."""
    classname, name = testcase_name(rule_id)
    return f"{classname}::{name}"


def decisive(cert: Certificate) -> set[str]:
    """The rule ids that make the run fail (the exit code's reasons): every rule a verdict
    names as blocking, every unexpected pass, and every rule of an expired baseline entry. A
    JUnit failure or error is exactly one of these, so the file and the exit code always
    agree."""
    ids = {item.split(" ", 1)[0] for v in cert.verdicts for item in v.blocking}
    expired = {e.rule for e in cert.baseline_summary.expired} if cert.baseline_summary else set()
    return ids | expired | {r.id for r in cert.rules if r.outcome == Outcome.UNEXPECTED_PASS}


def _durations(cert: Certificate) -> dict[str, float]:
    """Seconds per rule: a check run's time shared among the rules it decided, so that the
    testcase times add up to the time the checks took (never counted once per rule)."""
    durations: dict[str, float] = {}
    for run in cert.checks:
        for rule in run.rules:
            durations[rule] = durations.get(rule, 0.0) + run.duration / len(run.rules)
    return durations


def _scrub(element: ET.Element) -> None:
    """The one boundary of this format: XML-illegal characters in every text and attribute
    (the target's names, messages and values among them) replaced by their escapes."""
    for node in element.iter():
        if node.text:
            node.text = for_xml(node.text)
        for key, value in node.attrib.items():
            node.set(key, for_xml(value))


def to_element(cert: Certificate) -> ET.Element:
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    suite = ET.Element("testsuite", name=f"subagent-tck {cert.target.spec}",
                       tests=str(len(cert.rules)), time=f"{cert.duration:.3f}",
                       timestamp=cert.started_at.replace(tzinfo=None).isoformat(
                           timespec="seconds"))
    props = ET.SubElement(suite, "properties")
    for name, value in (("edition", cert.edition.value), ("seed", str(cert.seed)),
                        ("profile", cert.profile), ("verdict", cert.verdict.value),
                        ("kit_version", cert.kit_version),
                        ("catalogue_hash", cert.catalogue_hash),
                        ("interrupted", str(cert.interrupted).lower()),
                        ("inexpressible", str(len(cert.inexpressible))),
                        ("portable_variables", str(cert.portable_variables).lower())):
        ET.SubElement(props, "property", name=name, value=value)
    if cert.stopped_early:
        ET.SubElement(props, "property", name="stopped_early", value=cert.stopped_early)
    if cert.target_tools:
        ET.SubElement(props, "property", name="target_tools", value=" ".join(cert.target_tools))
    for number, line in enumerate(cert.dialect.lines(), 1):  # the dialect section
        ET.SubElement(props, "property", name=f"dialect.{number}", value=line.strip())
    if cert.baseline_summary is not None:  # what the baseline excused, found new, stale...
        ET.SubElement(props, "property", name="baseline", value=cert.baseline_summary.path)
        for name, count in cert.baseline_summary.counts().items():
            ET.SubElement(props, "property", name=f"baseline.{name}", value=str(count))
    for v in cert.verdicts:
        ET.SubElement(props, "property",
                      name=f"verdict.{v.provider}.{v.capability.value if v.capability else 'core'}",
                      value=v.verdict.value)
    durations = _durations(cert)
    blocking = decisive(cert)
    for result in cert.rules:
        classname, name = testcase_name(result.id)
        case = ET.SubElement(suite, "testcase", classname=classname, name=name,
                             time=f"{durations.get(result.id, 0.0):.3f}")
        first = result.failures[0].message if result.failures else result.reasons()
        summary = f"{result.title}: {result.outcome.value}" + (f": {first}" if first else "")
        if result.id in blocking and result.outcome == Outcome.ERROR:
            counts["errors"] += 1
            node = ET.SubElement(case, "error", message=summary, type="error")
            node.text = _body(result)
        elif result.id in blocking:
            counts["failures"] += 1
            node = ET.SubElement(case, "failure", message=summary, type=result.outcome.value)
            node.text = _body(result) or f"{result.outcome.value}: {result.reasons()}"
        elif result.outcome != Outcome.PASS:  # not decisive: reported, never a red test
            counts["skipped"] += 1
            why = ("SHOULD rule: reported, never decisive" if result.level == Level.SHOULD
                   and result.failures else result.reasons())
            node = ET.SubElement(case, "skipped", message=f"{result.title}: "
                                 f"{result.outcome.value}: {why}")
            node.text = _body(result) or None
    totals = {key: str(value) for key, value in counts.items()}
    for key, total in totals.items():
        suite.set(key, total)
    suites = [suite]
    if cert.promises is not None:  # certify --promises: their own testsuite, red when broken
        from .report_promises import junit_suite

        suites.append(junit_suite(cert.promises))
    summed = {key: str(sum(int(one.get(key, "0")) for one in suites))
              for key in ("tests", "failures", "errors")}
    root = ET.Element("testsuites", {"name": "subagent-tck", "tests": summed["tests"],
                                     "failures": summed["failures"], "errors": summed["errors"],
                                     "time": f"{cert.duration:.3f}"})
    root.extend(suites)
    _scrub(root)
    return root


def error_element(target_spec: str, message: str, kind: str) -> ET.Element:
    """The JUnit file of a run that ended before any check ran (usage error, unreachable
    target): one errored testcase that says why, so no stale file passes for this run."""
    suite = ET.Element("testsuite", name=f"subagent-tck {target_spec}", tests="1",
                       failures="0", errors="1", skipped="0", time="0.000")
    case = ET.SubElement(suite, "testcase", classname=SUITE, name="certify", time="0.000")
    node = ET.SubElement(case, "error", message=message, type=kind)
    node.text = message
    root = ET.Element("testsuites", name="subagent-tck", tests="1", failures="0", errors="1",
                      time="0.000")
    root.append(suite)
    _scrub(root)
    return root


def render_error(target_spec: str, message: str, kind: str) -> str:
    return _serialise(error_element(target_spec, message, kind))


def _serialise(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render(cert: Certificate) -> str:
    return _serialise(to_element(cert))
