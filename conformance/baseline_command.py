"""``subagent-tck baseline write|update``: a baseline from a certificate (docs/baseline.md).

::

    subagent-tck baseline write CERT.json --reason TEXT -o FILE
    subagent-tck baseline update FILE CERT.json [--accept-new --reason TEXT] [-o OUT]

``write`` excuses exactly the certificate's failing assertions. ``update`` keeps the entries
still needed with their reasons, drops the stale ones, pins entries of the old format, and
lists the failing assertions no entry names: it adds them only with ``--accept-new --reason``.
Exit codes: 0 written (update: nothing left unexcused), 1 update wrote the file but failing
assertions are left that no entry names, 2 bad input (a file that is not a certificate or not a
baseline, a baseline for another catalogue, an unknown rule id): nothing is written. Files are
replaced atomically.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from subagent_tck.spec import ErrorCode, TckError

from .core.exitcode import ExitCode
from .core.fingerprint import Assertion
from .core.untrusted import for_terminal


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    write = sub.add_parser("write", help="a baseline excusing exactly a certificate's failing "
                           "assertions")
    write.add_argument("certificate", metavar="CERT.json", help="certify's JSON report")
    write.add_argument("--reason", required=True, metavar="TEXT",
                       help="why these failures are expected (every entry's reason)")
    write.add_argument("-o", "--output", required=True, metavar="FILE",
                       help="the baseline file to write (replaced atomically)")
    write.set_defaults(run=_write)
    update = sub.add_parser("update", help="refresh a baseline from a certificate: keep the "
                            "reasons still needed, drop stale entries, list new failures")
    update.add_argument("baseline", metavar="FILE", help="the baseline file")
    update.add_argument("certificate", metavar="CERT.json", help="certify's JSON report")
    update.add_argument("--accept-new", action="store_true",
                        help="add the failing assertions no entry names, with --reason")
    update.add_argument("--reason", metavar="TEXT", help="the reason of the entries "
                        "--accept-new adds")
    update.add_argument("-o", "--output", metavar="FILE",
                        help="write there instead of replacing FILE")
    update.set_defaults(run=_update)


def run(args: argparse.Namespace) -> int:
    return int(args.run(args))


def _write_file(path: str, text: str) -> None:
    from .report.report_files import write_atomic

    try:
        write_atomic(Path(path), text)
    except OSError as exc:
        raise TckError(ErrorCode.USAGE, f"cannot write {path!r} ({exc}): choose a writable "
                       "path") from None


def _write(args: argparse.Namespace) -> int:
    from .core.baseline_write import failing, write
    from .core.certificate_file import read_certificate

    certificate = read_certificate(args.certificate)
    text, count = write(certificate, args.reason, args.certificate)
    _write_file(args.output, text)
    print(f"wrote {for_terminal(args.output)}: {count} failing assertion(s) of "
          f"{len({r.id for r in certificate.rules if r.failures})} rule(s) excused")
    _warn_errors(failing(certificate, args.certificate))
    return ExitCode.CERTIFIED


def _warn_errors(found: list[tuple[str, str | None, Assertion]]) -> None:
    """Say which excused assertions are errors of the target (a timeout, a crash, a broken
    connection): excusing one hides a run that could not judge, often a loaded machine."""
    errors = [(rule, a) for rule, _, a in found
              if a.way.startswith(("timeout", "error", "crashed"))]
    if errors:
        print(f"warning: {len(errors)} of them are errors of the target, not verdicts "
              "(certify again on a quiet machine before you keep them):", file=sys.stderr)
        for rule, assertion in errors:
            print(f"  {rule} {assertion.fingerprint} {for_terminal(assertion.summary())}",
                  file=sys.stderr)


def _update(args: argparse.Namespace) -> int:
    from .core.baseline import read_text
    from .core.baseline_write import describe, update
    from .core.certificate_file import read_certificate

    if args.accept_new and not (args.reason and args.reason.strip()):
        raise TckError(ErrorCode.USAGE, "--accept-new needs --reason TEXT: say why the new "
                       "failures are expected")
    if args.reason and not args.accept_new:
        raise TckError(ErrorCode.USAGE, "--reason is the reason of the entries --accept-new "
                       "adds: pass --accept-new too, or drop --reason")
    text = read_text(args.baseline)
    certificate = read_certificate(args.certificate)
    result = update(text, args.baseline, certificate, args.certificate,
                    accept_reason=args.reason if args.accept_new else None,
                    today=datetime.now(timezone.utc).date())
    target = args.output or args.baseline
    _write_file(target, result.text)
    out = sys.stdout
    out.write(f"wrote {for_terminal(target)}: {result.kept} entr(ies) kept"
              + (f", {result.added} added" if result.added else "") + "\n")
    for line in result.pinned:
        out.write(f"  pinned {for_terminal(line)}\n")
    for line in result.dropped:
        out.write(f"  dropped (stale) {for_terminal(line)}\n")
    if result.new and not result.added:
        out.write(f"{len(result.new)} failing assertion(s) no entry names (not added: "
                  "--accept-new --reason TEXT adds them):\n")
        for found in result.new:
            out.write(f"  new {for_terminal(describe(found))}\n")
        return ExitCode.FAILED
    for found in result.new:
        out.write(f"  added {for_terminal(describe(found))}\n")
    if result.added:
        _warn_errors(result.new)
    return ExitCode.CERTIFIED
