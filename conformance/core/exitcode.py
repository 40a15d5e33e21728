"""The certifier's exit codes: a stable contract for CI (docs/architecture.md).

========  ===================  =============================================================
code      name                 meaning
========  ===================  =============================================================
0         CERTIFIED            every advertised capability of every provider is certified (a
                               partial run, ``--rule``: every selected rule passed)
1         FAILED               some capability (or a provider's core rules) failed, a MUST rule
                               did not run, the baseline is stale or expired or left a
                               failing assertion unnamed, or
                               nothing was judged (every rule not applicable: NOT-RUN)
2         USAGE                bad command line, target spec, rule id, edition or baseline
3         TARGET_BROKEN        the target was unreachable, or every failure is an error: the
                               target crashed, hung, broke the protocol or the connection, or
                               the run's deadline expired (the certificate says which)
130       INTERRUPTED          stopped by Ctrl-C (SIGINT); the report written is marked
                               ``interrupted`` and its rules that did not run are not-run
========  ===================  =============================================================
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

from subagent_tck.spec import ErrorCode

if TYPE_CHECKING:
    from .certificate import Certificate


class ExitCode(IntEnum):
    """What ``subagent-tck`` returns; values never change meaning."""

    CERTIFIED = 0
    FAILED = 1
    USAGE = 2
    TARGET_BROKEN = 3
    INTERRUPTED = 130  # 128 + SIGINT, as shells report a process that Ctrl-C stopped


#: Error codes of the kit that mean "the target, not the user, is at fault": the one home of
#: that decision (docs/architecture.md#one-home-per-concept). A check turns them into an error
#: of the target (not a refusal), the CLI into exit 3, the HTTP client keeps them as the kit's.
TARGET_CODES = frozenset(
    {ErrorCode.TARGET_UNREACHABLE, ErrorCode.PROTOCOL_ERROR, ErrorCode.TIMEOUT}
)


def for_error(code: ErrorCode) -> ExitCode:
    """The exit code for a :class:`~subagent_tck.spec.TckError` that ended a command."""
    return ExitCode.TARGET_BROKEN if code in TARGET_CODES else ExitCode.USAGE


def for_certificate(certificate: Certificate) -> ExitCode:
    """130 when interrupted; 0 when certified (or a partial run passed); 3 when every failure
    is an error (the target crashed, broke the protocol or the connection, or the deadline
    expired); else 1."""
    if certificate.interrupted:
        return ExitCode.INTERRUPTED
    if certificate.succeeded:
        return ExitCode.CERTIFIED
    return ExitCode.TARGET_BROKEN if certificate.target_broken else ExitCode.FAILED
