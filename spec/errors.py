"""One exception root with stable codes, shared by every part of the kit.

A code is part of the contract: targets report it (in-process as :class:`TckError`, over HTTP
as the ``code`` of a JSON error body), checks compare it, and the certificate shows it. Codes
never change meaning; new ones are only added.
"""

from __future__ import annotations

from enum import Enum


class ErrorCode(str, Enum):
    """Stable error codes. The first group is what a conforming runtime reports."""

    # Rejections a runtime gives (docs/architecture.md; docs/rules.md).
    UNSUPPORTED_CAPABILITY = "UNSUPPORTED_CAPABILITY"  # CA-01
    NO_PROVIDER = "NO_PROVIDER"  # CA-05
    INVALID_TOOL_FILTER = "INVALID_TOOL_FILTER"  # TF-07, TF-08
    INVALID_DEPTH = "INVALID_DEPTH"  # DE-05..08
    DEPTH_EXCEEDED = "DEPTH_EXCEEDED"  # DE-03
    UNKNOWN_TOOL = "UNKNOWN_TOOL"  # TF-12
    RESERVED_NAME = "RESERVED_NAME"  # TF-06: registering or shadowing run_code
    DUPLICATE_TOOL = "DUPLICATE_TOOL"  # one global (or one scope-local) name registered twice
    INVALID_TEMPLATE = "INVALID_TEMPLATE"  # PE-05
    INVALID_OUTPUT_SCHEMA = "INVALID_OUTPUT_SCHEMA"  # FR-03
    REQUEST_CONTROLS_REFUSED = "REQUEST_CONTROLS_REFUSED"  # EN-02
    SETUP_FAILED = "SETUP_FAILED"  # FR-03, FR-04: setup of an unpublished child failed
    NOT_RESUMABLE = "NOT_RESUMABLE"  # FR-04: a descriptor can no longer be applied
    UNKNOWN_PRESET = "UNKNOWN_PRESET"
    UNKNOWN_AGENT = "UNKNOWN_AGENT"
    UNKNOWN_SESSION = "UNKNOWN_SESSION"
    UNKNOWN_RESTRICTION = "UNKNOWN_RESTRICTION"
    DUPLICATE_TOOL_NAME = "DUPLICATE_TOOL_NAME"  # ST-04: two subagent tools with one toolName
    INVALID_CONFIG = "INVALID_CONFIG"  # a malformed configuration value (ST-05 and others)
    INVALID_REQUEST = "INVALID_REQUEST"  # malformed input: wrong type, missing field
    SPAWN_DENIED = "SPAWN_DENIED"  # SP-01: the scope's spawn policies refuse the preset
    INVALID_SPAWN_POLICY = "INVALID_SPAWN_POLICY"  # SP-01: a malformed policy, unknown presets
    #: The runtime has no counterpart for an optional operation (docs/driver-api.md#errors):
    #: the rules whose scenario needs it are not applicable there, never failed or passed.
    UNSUPPORTED_OPERATION = "UNSUPPORTED_OPERATION"
    # Failures of the kit itself or of the conversation with a target.
    USAGE = "USAGE"  # bad command line, bad target spec, unknown rule id, bad baseline
    TARGET_UNREACHABLE = "TARGET_UNREACHABLE"
    PROTOCOL_ERROR = "PROTOCOL_ERROR"  # the target answered outside the driver protocol
    TIMEOUT = "TIMEOUT"


class TckError(Exception):
    """The root of every error the kit raises or a target reports.

    ``code`` is stable; ``message`` says what went wrong and how to fix it; ``details`` carries
    machine-readable extras (for example the offending names of an invalid tool filter).
    """

    def __init__(
        self, code: ErrorCode | str, message: str, details: dict[str, object] | None = None
    ) -> None:
        self.code = ErrorCode(code)
        self.message = message
        self.details: dict[str, object] = dict(details or {})
        super().__init__(f"{self.code.value}: {message}")

    def to_json(self) -> dict[str, object]:
        """The JSON error body of the driver protocol."""
        body: dict[str, object] = {"code": self.code.value, "message": self.message}
        if self.details:
            body["details"] = self.details
        return body
