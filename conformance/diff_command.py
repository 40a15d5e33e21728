"""``subagent-tck diff OLD.json NEW.json [--format text|markdown|json]``: what changed between
two certificates (docs/baseline.md#diff): rule outcomes, assertions that started or stopped
failing, capabilities, the dialect, timing. Exit codes: 0 nothing got worse, 1 something did,
2 bad input (a file that is not a certificate)."""

from __future__ import annotations

import argparse
import sys

from .core.exitcode import ExitCode

FORMATS = ("text", "markdown", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD.json", help="the earlier certificate (JSON report)")
    parser.add_argument("new", metavar="NEW.json", help="the later certificate")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--output", metavar="FILE", help="write the report there (replaced "
                        "atomically) instead of stdout")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .core.certificate_file import read_raw
    from .core.diff import compare
    from .report.report_diff import FORMATS as RENDER
    from .report.report_files import write_atomic

    old, old_raw = read_raw(args.old)
    new, new_raw = read_raw(args.new)
    diff = compare(old, new, old_raw, new_raw)
    text = RENDER[args.format](diff)
    if args.output:
        write_atomic(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return ExitCode.FAILED if diff.worse else ExitCode.CERTIFIED
