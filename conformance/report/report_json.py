"""The JSON certificate (docs/architecture.md): the machine-readable record of a
run, valid against the committed ``certificate.schema.json``.

Any Unicode a target sent survives: :func:`render` is the boundary of this format, where a lone
surrogate (which no UTF-8 file can hold raw) is written as its ``\\udXXX`` escape, still valid
JSON (docs/certify.md#outputs). A run that ended before any check ran writes
:func:`render_error` instead: a small document with ``error`` in place of results, which no
reader can take for a certificate.
"""

from __future__ import annotations

import json

from ..core.certificate import Certificate
from ..core.certificate_assembly import error_report
from ..core.jsonsafe import plain
from ..core.untrusted import json_surrogates


def _dump(document: object) -> str:
    return json_surrogates(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def render(cert: Certificate) -> str:
    # a run without --timings writes no timings key: its JSON is what it always was
    # (docs/certify.md#timings)
    omitted = {"timings"} if cert.timings is None else None
    return _dump(plain(cert.model_dump(mode="python", exclude=omitted)))


def render_error(target_spec: str, message: str, kind: str, exit_code: int) -> str:
    """The JSON of a run that ended before any check ran: why, and the exit code."""
    return _dump(plain(error_report(target_spec, kind, message, exit_code)
                       .model_dump(mode="python")))
