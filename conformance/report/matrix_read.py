"""Reading certificates for the matrix (docs/matrix.md), tolerantly.

The matrix reads certificates written by other versions of the kit: older ones that lack a
field added since, newer ones that carry fields this kit does not know (per-assertion
fingerprints, a dialect section). So it does not read them with the kit's own
:class:`~..core.certificate.Certificate` (which requires every field of this version) but with
the small models below: only what the matrix shows, every field but a certificate's identity
optional, unknown fields ignored. A file that is not a certificate (not JSON, an error report,
another document) is a usage error naming the file.

Each certificate is named by the SHA-256 of its file's bytes, which is how a cell of the
matrix says where it came from.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from subagent_tck.spec import ErrorCode, TckError


class _Tolerant(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ReadFailure(_Tolerant):
    rule: str
    check: str = ""
    message: str = ""
    expected: Any = None
    observed: Any = None
    provider: str | None = None
    error: bool = False
    example: str | None = None
    replay: str | None = None
    fingerprint: str | None = None  # written by kits that pin baselines per assertion


class ReadProviderOutcome(_Tolerant):
    provider: str | None = None
    outcome: str
    reason: str = ""
    inexpressible: bool = False


class ReadRule(_Tolerant):
    id: str
    title: str = ""
    level: str = ""
    family: str = ""
    capability: str | None = None
    component: str | None = None
    edition: str | None = None
    outcome: str
    providers: list[ReadProviderOutcome] = Field(default_factory=list)
    failures: list[ReadFailure] = Field(default_factory=list)
    replay: str | None = None


class ReadVerdict(_Tolerant):
    provider: str
    capability: str | None = None
    verdict: str
    blocking: list[str] = Field(default_factory=list)


class ReadInfo(_Tolerant):
    name: str
    version: str = ""


class ReadTarget(_Tolerant):
    spec: str
    info: ReadInfo


class ReadCertificate(_Tolerant):
    kit_version: str = ""
    catalogue_hash: str
    edition: str
    profile: str = ""
    seed: int | None = None
    baseline: str | None = None
    selected_rules: list[str] | None = None
    selected_providers: list[str] | None = None
    target: ReadTarget
    verdict: str
    verdicts: list[ReadVerdict] = Field(default_factory=list)
    rules: list[ReadRule]


class Source(BaseModel):
    """One certificate file as the matrix names it."""

    model_config = ConfigDict(frozen=True)

    file: str = Field(description="the file's name, as given")
    sha256: str = Field(description="SHA-256 of the file's bytes")
    certificate: ReadCertificate


def read_certificate(path: Path) -> Source:
    """The certificate at ``path``; a file that is not one is a usage error naming it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TckError(ErrorCode.USAGE, f"cannot read certificate {str(path)!r}: "
                       f"{exc.strerror or exc}") from None
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise TckError(ErrorCode.USAGE, f"{str(path)!r} is not JSON ({exc}): give the JSON "
                       "certificate of a run (certify --format json)") from None
    if isinstance(document, dict) and document.get("verdict") == "ERROR":
        raise TckError(ErrorCode.USAGE, f"{str(path)!r} is the error report of a run that "
                       "ended before any check ran, not a certificate: certify the target "
                       "again") from None
    try:
        certificate = ReadCertificate.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the document"
        raise TckError(ErrorCode.USAGE, f"{str(path)!r} is not a subagent-tck certificate "
                       f"({where}: {first['msg']}): give the JSON certificate of a run "
                       "(certify --format json)") from None
    return Source(file=path.name, sha256=hashlib.sha256(data).hexdigest(),
                  certificate=certificate)
