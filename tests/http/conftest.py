"""Fixtures of the HTTP transport's tests: the reference served on 127.0.0.1, broken adapters."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import ServerThread


@pytest.fixture(scope="module")
def served() -> Iterator[ServerThread]:
    """The reference target behind the driver API, on a free loopback port (one per module:
    tests isolate by deployment, as the kit does)."""
    with ServerThread(create_app(reference_target(), model_timeout=10.0)) as server:
        yield server


@pytest.fixture
def http_target(served: ServerThread) -> Iterator[HttpTarget]:
    target = HttpTarget(served.url, timeout=10.0)
    yield target
    target.close()
