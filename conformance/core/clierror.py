"""One error style for every command: ``subagent-tck: error: <message> (code <CODE>)`` on
stderr, and the exit code that goes with the code (docs/certify.md, "Exit codes").

The message may carry text a target supplied (its provider names, its error messages): control
and escape characters in it are shown escaped, never sent to the terminal raw.
"""

from __future__ import annotations

import sys
from typing import IO

from subagent_tck.spec import ErrorCode, TckError

from .exitcode import for_error
from .untrusted import for_terminal

PROG = "subagent-tck"


def printable(text: str) -> str:
    """``text`` with control, format and surrogate characters (ESC, BEL, bidi overrides...)
    shown escaped, so it cannot drive the terminal: the terminal boundary of
    :func:`~.untrusted.for_terminal`, newlines kept."""
    return for_terminal(text, keep_newlines=True)


def error_line(message: str, code: ErrorCode | str = ErrorCode.USAGE, *,
               prog: str = PROG) -> str:
    """The one line every command prints for an error that ends it."""
    value = code.value if isinstance(code, ErrorCode) else str(code)
    return f"{prog}: error: {printable(message)} (code {value})"


def report_error(error: TckError | str, code: ErrorCode = ErrorCode.USAGE, *,
                 stream: IO[str] | None = None, prog: str = PROG) -> int:
    """Print ``error`` in the one style on stderr (or ``stream``); return its exit code: 2 for
    a mistake of the user, 3 when the target is at fault (:func:`~.exitcode.for_error`)."""
    if isinstance(error, TckError):
        message, code = error.message, error.code
    else:
        message = error
    print(error_line(message, code, prog=prog), file=stream or sys.stderr, flush=True)
    return int(for_error(code))
