"""Fixtures of the HTTP transport's tests: the reference served on 127.0.0.1, broken adapters."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.gateway_server import GatewayServer
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


@pytest.fixture
def kit() -> Iterator[tuple[Gateway, str]]:
    """The kit's model gateway over HTTP, as an adapter's proxy reaches it: the gateway and its
    URL, the agents ``root`` and ``child-1`` known (the proxy tests of each traffic adapter)."""
    server = GatewayServer(reply_timeout=2.0).start()
    gateway = Gateway()
    yield gateway, server.mount(gateway, known=lambda agent: agent in ("root", "child-1"))
    server.close()


@pytest.fixture(scope="module")
def runtime_kit() -> Iterator[tuple[Gateway, str]]:
    """The kit's model gateway over HTTP for a real runtime's deployment (one per module): the
    gateway and its URL, every agent known, two minutes for each reply (a runtime's turn is
    slow; the nested starts of each traffic adapter)."""
    server = GatewayServer(reply_timeout=120).start()
    gateway = Gateway()
    try:
        yield gateway, server.mount(gateway, known=lambda agent: True)
    finally:
        server.close()


@pytest.fixture
def proxy(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The model endpoint of the test module's adapter (the module's ``Proxy``), closed after
    the test (the proxy tests of each traffic adapter)."""
    endpoint = request.module.Proxy()
    yield endpoint
    endpoint.close()
