"""One failure as plain lines: the one renderer behind the terminal summary, the pytest plugin's
failing item and the JUnit ``<failure>`` body (docs/architecture.md#one-home-per-concept).

Lines are not yet safe for any output: each report passes them through its own boundary of
:mod:`.untrusted` (the terminal's, pytest's report, XML's).
"""

from __future__ import annotations

import json
from typing import Any

from ..core.outcome import Failure

#: A value longer than this is cut in the summary (the JSON certificate keeps it whole).
MAX_VALUE_CHARS = 600


def _short(value: Any) -> str:
    plain = isinstance(value, str) and "\n" not in value  # keep one value on one log line
    out = value if plain else json.dumps(value, sort_keys=True, default=str)
    return out if len(out) <= MAX_VALUE_CHARS else out[:MAX_VALUE_CHARS] + " …"


def _whole(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def failure_lines(failure: Failure, indent: str = "  ", *, whole: bool = False) -> list[str]:
    """``failure`` as lines: message, expected, observed, cause, example, replay. ``whole``
    (a file that is the record, like JUnit): values in full, and the check's name, the
    transcript and the traceback too; otherwise long values are cut and the traceback is
    :func:`traceback_lines`' to show."""
    value = _whole if whole else _short
    prefix = f"[{failure.provider}] " if failure.provider else ""
    suffix = f"  (check {failure.check})" if whole else ""
    lines = [f"{indent}{prefix}{failure.message}{suffix}"]
    deeper = indent + "  "
    if failure.expected is not None:
        lines.append(f"{deeper}expected: {value(failure.expected)}")
    if failure.observed is not None:
        lines.append(f"{deeper}observed: {value(failure.observed)}")
    if failure.cause:
        cause = f"cause: {failure.cause}" if whole else f"cause:    {_short(failure.cause)}"
        lines.append(deeper + cause)
    if failure.example and "\n" in failure.example:  # a sequence: one step per line
        lines.append(f"{deeper}example:")
        lines += [f"{deeper}  {step}" for step in failure.example.split("\n")]
    elif failure.example:
        lines.append(f"{deeper}example:  {value(failure.example)}")
    if failure.replay:
        lines.append(f"{deeper}replay this failure: {failure.replay}")
    if whole and failure.transcript:
        lines.append(f"{deeper}transcript: {_whole(failure.transcript)}")
    if whole:
        lines += traceback_lines(failure, deeper)
    return lines


def traceback_lines(failure: Failure, indent: str = "    ") -> list[str]:
    """The traceback of a failure (a provider's exception, a crashed check), indented."""
    if not failure.traceback:
        return []
    return [f"{indent}{line}" for line in failure.traceback.rstrip().split("\n")]
