"""Report files: several formats from one run, each written atomically (docs/certify.md#outputs).

``certify --report junit=tck.xml --report json=cert.json --report markdown=tck.md`` (and the
older ``--format F --output FILE``) name the files. Each is rendered in full, written to a
temporary file in the same directory, flushed to disk and renamed over the old one: a reader
sees the old report or the new one, never a half-written or empty file. A run that ends
before any check ran (a usage error, an unreachable target) writes a report that says why, so
an earlier run's pass is never left in place to be published for this one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from subagent_tck.spec import ErrorCode, TckError

from ..core.certificate import Certificate

FORMATS = ("text", "json", "junit", "markdown")


@dataclass(frozen=True)
class ReportFile:
    format: str
    path: Path
    option: str = "--report"  # the option that named it, for error messages

    @property
    def named(self) -> str:
        return f"{self.option} {str(self.path)!r} ({self.format})"


def parse_report(value: str) -> ReportFile:
    """``FORMAT=PATH`` of ``--report``; a mistake is a usage error naming the fix."""
    fmt, sep, path = value.partition("=")
    fmt = fmt.strip().lower()
    if not sep or not path.strip():
        raise TckError(ErrorCode.USAGE, f"--report {value!r}: write FORMAT=FILE, e.g. "
                       "--report junit=tck.xml")
    if fmt not in FORMATS:
        raise TckError(ErrorCode.USAGE, f"--report {value!r}: unknown format {fmt!r}: use one "
                       f"of {', '.join(FORMATS)}")
    return ReportFile(fmt, Path(path))


def check_writable(reports: Sequence[ReportFile]) -> None:
    """Refuse, before anything runs, a report that cannot be written, or two reports to one
    file (the second would silently replace the first)."""
    seen: dict[Path, str] = {}
    for report in reports:
        resolved = report.path.resolve()
        if resolved in seen:
            raise TckError(ErrorCode.USAGE, f"{seen[resolved]} and {report.named} both go to "
                           "one file: give each report its own file")
        seen[resolved] = report.named
        folder = resolved.parent
        if report.path.is_dir():
            raise TckError(ErrorCode.USAGE, f"cannot write {report.named}: it is a directory; "
                           "pass a file path")
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise TckError(ErrorCode.USAGE, f"cannot write {report.named}: its directory "
                           f"{str(folder)!r} does not exist or is not writable; pass a "
                           "writable file path")


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one step: temporary file in the same
    directory, fsync, rename. On failure the old file is untouched and no temporary is left."""
    folder = path.resolve().parent
    temporary = folder / f".{path.name}.{secrets.token_hex(4)}.tmp"
    data = text.encode("utf-8", errors="backslashreplace")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable; not every platform can open a directory
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def render(fmt: str, cert: Certificate) -> str:
    """The report of ``cert`` in format ``fmt``."""
    if fmt == "json":
        from . import report_json

        return report_json.render(cert)
    if fmt == "junit":
        from . import report_junit

        return report_junit.render(cert)
    if fmt == "markdown":
        from . import report_markdown

        return report_markdown.render(cert)
    from . import report_text

    return report_text.render(cert)


def render_error(fmt: str, target_spec: str, exc: TckError, exit_code: int,
                 kind: str | None = None) -> str:
    """The report of a run that ended with ``exc`` before any check ran; ``kind`` names why
    (default: the error's code)."""
    kind = kind or exc.code.value
    if fmt == "json":
        from . import report_json

        return report_json.render_error(target_spec, exc.message, kind, exit_code)
    if fmt == "junit":
        from . import report_junit

        return report_junit.render_error(target_spec, exc.message, kind)
    if fmt == "markdown":
        from . import report_markdown

        return report_markdown.render_error(target_spec, exc.message, kind)
    from ..core.untrusted import for_terminal

    return for_terminal(f"subagent-tck certify --target {target_spec}: the run ended before "
                        f"any check ran ({kind}, exit {exit_code}): {exc.message}") + "\n"


def _write(report: ReportFile, text: str) -> None:
    try:
        write_atomic(report.path, text)
    except OSError as exc:
        raise TckError(ErrorCode.USAGE, f"cannot write {report.named} "
                       f"({exc.strerror or exc}): pass a writable file path") from None


def write_all(reports: Sequence[ReportFile], cert: Certificate) -> None:
    """Write every report of ``cert``; each is rendered before anything is replaced."""
    texts = [(report, render(report.format, cert)) for report in reports]
    for report, text in texts:
        _write(report, text)


def write_errors(reports: Sequence[ReportFile], target_spec: str, exc: TckError,
                 exit_code: int, kind: str | None = None) -> list[str]:
    """Replace every report with one that says why the run ended early; the paths written
    (a report that cannot be written is removed instead, so no stale pass remains)."""
    written = []
    for report in reports:
        try:
            write_atomic(report.path,
                         render_error(report.format, target_spec, exc, exit_code, kind))
            written.append(str(report.path))
        except OSError:
            with contextlib.suppress(OSError):
                report.path.unlink(missing_ok=True)
    return written
