"""The promises of ``certify --promises FILE`` in the certificate's reports (docs/certify.md,
docs/promises.md): their own items beside the rules, in text, JUnit and Markdown (the JSON
certificate carries the :class:`~.promises_report.PromisesReport` as it is).

A promise item that is not kept fails the run (the certificate's verdict, the exit code): in
JUnit a broken aspect is a ``<failure>`` and an errored one an ``<error>``, in a testsuite of
their own; in text and Markdown each shows what was expected, what was observed and the
one-line replay. Values from the target are escaped JSON here; each format's own boundary
(terminal, XML, Markdown) still applies to the lines these functions return.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from ..core.promises_report import PromiseItem, PromisesReport
from ..core.untrusted import for_markdown_inline, markdown_fence

MAX_VALUE_CHARS = 600


def _value(value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=True, sort_keys=True, default=str)
    return shown if len(shown) <= MAX_VALUE_CHARS else shown[:MAX_VALUE_CHARS] + " …"


def failing(report: PromisesReport) -> list[PromiseItem]:
    return [i for i in report.items if i.status != "kept"]


def summary(report: PromisesReport) -> str:
    """``promises (FILE): all kept: 12 promise(s), 70 item(s): 70 kept, 0 broken, 0 error``."""
    verdict = "all kept" if report.kept else "NOT KEPT"
    counts = ", ".join(f"{n} {s}" for s, n in report.counts().items())
    promises = len({i.promise for i in report.items})
    return (f"promises ({report.file}): {verdict}: {promises} promise(s), "
            f"{len(report.items)} item(s): {counts} in {report.seconds:.2f} s")


def item_lines(item: PromiseItem, indent: str = "  ") -> list[str]:
    """One item not kept: status, name, message; expected, observed and the replay."""
    deeper = indent + "  "
    return [f"{indent}{item.status.upper()} {item.name}: {item.message}",
            f"{deeper}expected: {_value(item.expected)}",
            f"{deeper}observed: {_value(item.observed)}",
            f"{deeper}replay this promise: {item.replay}"]


def text_lines(report: PromisesReport) -> list[str]:
    lines = [summary(report)]
    for item in failing(report):
        lines += item_lines(item)
    return lines


def junit_suite(report: PromisesReport) -> ET.Element:
    """A testsuite with one testcase per promise and aspect (classname ``promises.ID``)."""
    counts = report.counts()
    suite = ET.Element("testsuite", name=f"subagent-tck promises {report.file}",
                       tests=str(len(report.items)), failures=str(counts["broken"]),
                       errors=str(counts["error"]), skipped="0", time=f"{report.seconds:.3f}")
    for item in report.items:
        case = ET.SubElement(suite, "testcase", classname=f"promises.{item.promise}",
                             name=item.aspect, time="0.000")
        if item.status == "kept":
            continue
        tag = "failure" if item.status == "broken" else "error"
        node = ET.SubElement(case, tag, message=f"{item.name}: {item.message}",
                             type=item.status)
        body = "\n".join(line.strip() for line in item_lines(item, ""))
        if item.exchange:
            body += "\nexchange: " + json.dumps(item.exchange, indent=2, sort_keys=True,
                                                default=str)
        node.text = body
    return suite


def _block(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, sort_keys=True,
                                                           default=str)
    if len(text) > 2000:
        text = text[:2000] + "\n…"
    fence, body = markdown_fence(text)
    return "\n".join("  " + line for line in f"{fence}\n{body}\n{fence}".splitlines())


def markdown_lines(report: PromisesReport) -> list[str]:
    md = for_markdown_inline
    mark = "✅" if report.kept else "❌"
    counts = " · ".join(f"{n} {s}" for s, n in report.counts().items())
    lines = [f"### {mark} Promises ({md(report.file)})", "",
             f"{len({i.promise for i in report.items})} promise(s), {len(report.items)} "
             f"item(s): {counts}", ""]
    for item in failing(report):
        lines += [f"- **{md(item.status)}** {md(item.name)}: {md(item.message)}", "",
                  "  expected:", "", _block(item.expected), "",
                  "  observed:", "", _block(item.observed), "",
                  "  replay this promise:", "", _block(item.replay), ""]
    return lines
