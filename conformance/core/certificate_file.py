"""Reading a certificate back from its JSON report (``baseline write|update``, ``diff``).

A file is a certificate when it validates against :class:`~.certificate.Certificate` and names
only rules this kit knows. Anything else (not JSON, the error report of a run that ended before
any check ran, another document) is a usage error that says what the file is and what to pass
instead.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from subagent_tck.spec import RULES_BY_ID, ErrorCode, TckError

from .baseline import read_text
from .certificate import Certificate


def read_raw(path: str) -> tuple[Certificate, dict[str, Any]]:
    """The certificate in ``path`` and its JSON as read (sections this kit does not model,
    such as another version's, are kept there); anything else is a usage error naming what it
    is."""
    text = read_text(path, "certificate")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TckError(ErrorCode.USAGE, f"{path} is not JSON ({exc}): pass the JSON report of "
                       "`subagent-tck certify --format json`") from None
    if not isinstance(data, dict):
        raise TckError(ErrorCode.USAGE, f"{path} is JSON but not a certificate (a "
                       f"{type(data).__name__}): pass the JSON report of `subagent-tck certify "
                       "--format json`")
    if data.get("verdict") == "ERROR":
        raise TckError(ErrorCode.USAGE, f"{path} is the error report of a run that ended "
                       "before any check ran: it has no failures to pin; certify again")
    try:
        certificate = Certificate.model_validate(data)
    except ValidationError as exc:
        raise TckError(ErrorCode.USAGE, f"{path} is not a subagent-tck certificate "
                       f"({exc.error_count()} problem(s), the first: {_first(exc)}): pass the "
                       "JSON report of `subagent-tck certify --format json`") from None
    unknown = sorted({r.id for r in certificate.rules} - set(RULES_BY_ID))
    if unknown:
        raise TckError(ErrorCode.USAGE, f"{path} names rule id(s) this kit does not know "
                       f"({', '.join(unknown)}): it was made by another catalogue; certify "
                       "again with this kit")
    return certificate, data


def read_certificate(path: str) -> Certificate:
    """The certificate in ``path`` (see :func:`read_raw`)."""
    return read_raw(path)[0]


def _first(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error.get("loc", ())) or "(top)"
    return f"{where}: {error.get('msg', '')}"


