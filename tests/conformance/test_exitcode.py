"""Exit codes are a stable contract (docs/architecture.md)."""

from __future__ import annotations

import pytest

from subagent_tck.conformance.core.exitcode import ExitCode, for_error
from subagent_tck.spec import ErrorCode


def test_the_exit_codes_never_change_meaning() -> None:
    assert {c.name: c.value for c in ExitCode} == {
        "CERTIFIED": 0, "FAILED": 1, "USAGE": 2, "TARGET_BROKEN": 3, "INTERRUPTED": 130}


@pytest.mark.parametrize(("code", "exit_code"), [
    (ErrorCode.USAGE, ExitCode.USAGE),
    (ErrorCode.TARGET_UNREACHABLE, ExitCode.TARGET_BROKEN),
    (ErrorCode.PROTOCOL_ERROR, ExitCode.TARGET_BROKEN),
    (ErrorCode.TIMEOUT, ExitCode.TARGET_BROKEN),
    (ErrorCode.INVALID_CONFIG, ExitCode.USAGE),
])
def test_an_error_that_ends_a_command_maps_to_usage_or_target_broken(
    code: ErrorCode, exit_code: ExitCode,
) -> None:
    assert for_error(code) == exit_code
