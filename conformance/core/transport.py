"""A target's transport failure: the exchange failed below the driver protocol.

Its own module (importing nothing but spec) so that whatever tells a target's errors from its
refusals (the runner, a check context) can name the type without importing the HTTP stack
(docs/driver-api.md#security-and-processes).
"""

from __future__ import annotations

from subagent_tck.spec import ErrorCode, TckError


class TransportError(TckError):
    """The exchange with the target failed below the driver protocol: no connection
    (``kind`` ``"connect"``), the connection reset or cut mid-answer (``"reset"``), no whole
    answer in time (``"timeout"``), bytes that are not HTTP or an answer over the size limit
    (``"http"``). Its ``code`` is TARGET_UNREACHABLE, TIMEOUT or PROTOCOL_ERROR and its
    ``details`` are ``{"transport": kind}``: an error of the target, never a refusal."""

    KINDS = ("connect", "reset", "timeout", "http")

    def __init__(self, code: ErrorCode, message: str, kind: str) -> None:
        super().__init__(code, message, {"transport": kind})
        self.kind = kind

