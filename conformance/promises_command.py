"""``subagent-tck promises --target T FILE``: check a plugin's promises on the model wire.

Exit codes are certify's (docs/certify.md): 0 every promise kept, 1 a promise broken or not
demonstrated (an error item: a trigger never performed, a model the target never reports), 2
usage (a bad file names its line), 3 the target was unreachable or off-protocol.
Formats: ``text`` (terminal and CI logs), ``json`` (the :class:`~.promises.PromisesReport`) and
``junit`` (one testcase per item) and ``markdown`` (a table, for a CI job summary). See
docs/promises.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from typing import IO
from xml.etree import ElementTree as ET

from subagent_tck.spec import ErrorCode, TckError

from .core.exitcode import ExitCode
from .core.promises_report import PromiseItem, PromisesReport

FORMATS = ("text", "json", "junit", "markdown")
_LIMIT = 400


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help="the promises file (TOML)")
    parser.add_argument("--target", metavar="TARGET", help="as for certify")
    parser.add_argument("--only", action="append", metavar="ID",
                        help="check only this promise (repeatable)")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--output", metavar="FILE", help="write the report there (the "
                        "terminal still gets the text summary)")
    parser.add_argument("--schema", action="store_true",
                        help="print the promises file's JSON Schema and exit")


def _safe(value: object) -> str:
    """Target-supplied values as one escaped line (no control characters reach a terminal)."""
    shown = json.dumps(value, ensure_ascii=True, sort_keys=True, default=str)
    return shown if len(shown) <= _LIMIT else shown[:_LIMIT] + f"... ({len(shown)} chars)"


def _line(item: PromiseItem) -> str:
    return f"{item.status.upper():<12} {item.name}: {_safe(item.message)[1:-1]}"


def write_text(report: PromisesReport, stream: IO[str]) -> None:
    for item in report.items:
        stream.write(_line(item) + "\n")
        if item.status in ("broken", "error"):
            stream.write(f"    expected: {_safe(item.expected)}\n")
            stream.write(f"    observed: {_safe(item.observed)}\n")
            stream.write(f"    replay:   {item.replay}\n")
    counts = report.counts()
    promises = len({i.promise for i in report.items})
    verdict = "all promises kept" if report.kept else "PROMISES BROKEN"
    stream.write(
        f"{verdict}: {promises} promise(s), {len(report.items)} item(s): "
        + ", ".join(f"{n} {s}" for s, n in counts.items()) + f" in {report.seconds:.2f}s\n"
    )


def write_junit(report: PromisesReport, stream: IO[str]) -> None:
    counts = report.counts()
    suite = ET.Element("testsuite", name="promises", tests=str(len(report.items)),
                       failures=str(counts["broken"]), errors=str(counts["error"]),
                       time=f"{report.seconds:.3f}")
    for item in report.items:
        case = ET.SubElement(suite, "testcase", classname=f"promises.{item.promise}",
                             name=item.aspect)
        body = (f"{item.message}\nexpected: {_safe(item.expected)}\n"
                f"observed: {_safe(item.observed)}\nreplay: {item.replay}")
        if item.status == "broken":
            ET.SubElement(case, "failure", message=_safe(item.message)).text = body
        elif item.status == "error":
            ET.SubElement(case, "error", message=_safe(item.message)).text = body
    stream.write(ET.tostring(suite, encoding="unicode") + "\n")


def _cell(value: object) -> str:
    """A Markdown table cell: escaped JSON, pipes and backticks neutralised."""
    return _safe(value).replace("|", "\\|").replace("`", "'")


def write_markdown(report: PromisesReport, stream: IO[str]) -> None:
    counts = report.counts()
    verdict = "all promises kept" if report.kept else "**promises broken**"
    stream.write(f"## Promises: {verdict}\n\n")
    stream.write(", ".join(f"{n} {s}" for s, n in counts.items())
                 + f" ({len(report.items)} items, {report.seconds:.2f}s)\n\n")
    stream.write("| status | promise | aspect | message | expected | observed |\n")
    stream.write("|---|---|---|---|---|---|\n")
    for item in report.items:
        shown = item.status in ("broken", "error")
        stream.write(f"| {item.status} | {_cell(item.promise)[1:-1]} | {item.aspect} | "
                     f"{_cell(item.message)[1:-1]} | {_cell(item.expected) if shown else ''} | "
                     f"{_cell(item.observed) if shown else ''} |\n")
    replays = [i.replay for i in report.items if i.status in ("broken", "error")]
    if replays:
        stream.write("\nReplay:\n\n```sh\n" + "\n".join(dict.fromkeys(replays)) + "\n```\n")


def exit_code(report: PromisesReport) -> ExitCode:
    return ExitCode.CERTIFIED if report.kept else ExitCode.FAILED


def run(args: argparse.Namespace) -> int:
    from .core.promises_file import json_schema, load
    from .engine.promises import check_all
    from .transports.targets import load_target

    if args.schema:
        sys.stdout.write(json_schema())
        return ExitCode.CERTIFIED
    if not args.file or not args.target:
        raise TckError(ErrorCode.USAGE, "give a promises FILE and --target TARGET, e.g. "
                       "subagent-tck promises --target reference promises.toml")
    file = load(args.file)  # usage errors first: nothing starts for a bad file
    unknown = sorted(set(args.only or ()) - {p.id for p in file.promise})
    if unknown:
        raise TckError(ErrorCode.USAGE, f"--only names no promise of {args.file}: "
                       f"{', '.join(unknown)} (ids: {', '.join(p.id for p in file.promise)})")
    with ExitStack() as stack:
        stream: IO[str] = sys.stdout
        if args.output:
            try:
                stream = stack.enter_context(open(args.output, "w", encoding="utf-8"))
            except OSError as exc:
                raise TckError(ErrorCode.USAGE, f"cannot write --output {args.output!r} "
                               f"({exc.strerror}): pass a writable file path") from None
        target = load_target(args.target)
        stack.callback(target.close)
        report = check_all(target, file, target_spec=args.target, path=args.file,
                           only=args.only)
        if args.format == "json":
            stream.write(report.model_dump_json(indent=2) + "\n")
        elif args.format == "junit":
            write_junit(report, stream)
        elif args.format == "markdown":
            write_markdown(report, stream)
        else:
            write_text(report, stream)
        if args.output:
            write_text(report, sys.stdout)
    return exit_code(report)
