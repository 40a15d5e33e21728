"""A transport fault in the middle of a run is an error of the target, never a rule failure:
whichever check meets it ends as an error, the run exits 3, its reports validate against the
committed schema, and nothing in them reads the fault as a wrong answer
(docs/certify.md#exit-codes)."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
from fixtures.json_reply import JsonHandler

from subagent_tck.conformance.core.exitcode import ExitCode, for_certificate
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.report import report_json
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import ServerThread

SCHEMA = json.loads((Path(__file__).parents[2] / "conformance" / "core" /
                     "certificate.schema.json").read_text("utf-8"))


def _duplicated(body: bytes) -> bytes:
    """The same JSON object with its first key written twice (same value both times)."""
    pairs = list(json.loads(body).items())
    parts = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in [*pairs, pairs[0]]]
    return ("{" + ", ".join(parts) + "}").encode()


#: What the faulty proxy sends instead of the target's answer to a start.
FAULTS = {
    "reset": None,  # the connection is reset before any answer
    "stall": b"",  # headers promise a body that never comes
    "deep": b"[" * 200_000 + b"]" * 200_000,
    "malformed": b'{"agent": "a1", "session": ',
    "duplicate-keys": b"",  # the target's own answer with a key repeated
}
WORDS = {"reset": "connection", "stall": "TIMEOUT", "deep": "not standard JSON",
         "malformed": "not standard JSON", "duplicate-keys": "appears twice"}


def _proxy(upstream: str, fault: str) -> ThreadingHTTPServer:
    """A loopback proxy in front of ``upstream`` that answers every ``start`` with ``fault``
    and forwards everything else."""
    host = urlsplit(upstream)

    class Handler(JsonHandler):
        def _forward(self) -> tuple[int, bytes]:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            connection = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
            try:
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "connection", "content-length")}
                connection.request(self.command, self.path, body=body, headers=headers)
                answer = connection.getresponse()
                return answer.status, answer.read()
            finally:
                connection.close()

        def _handle(self) -> None:
            if not self.path.endswith("/start"):
                status, data = self._forward()
                return self.send(status, data)
            if fault == "reset":
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return None
            if fault == "stall":
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send(200, b'{"agent": ', length=4096)
                time.sleep(8)
                self.close_connection = True
                return None
            status, data = self._forward()
            if fault == "duplicate-keys" and status == 200:
                return self.send(200, _duplicated(data))
            if status == 200:
                return self.send(200, FAULTS[fault])
            return self.send(status, data)

        do_GET = do_POST = do_DELETE = _handle

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def upstream(served: ServerThread) -> str:
    return served.url


@pytest.fixture(params=sorted(FAULTS))
def faulty(request: pytest.FixtureRequest, upstream: str) -> Iterator[tuple[str, str]]:
    server = _proxy(upstream, request.param)
    try:
        yield request.param, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("rules", [("FR-03",), ("CA-01", "CA-02")])
def test_a_fault_answering_a_start_is_an_error_of_the_target_never_a_rule_failure(
    faulty: tuple[str, str], rules: tuple[str, ...],
) -> None:
    fault, url = faulty
    target = HttpTarget(url, timeout=2.0)
    try:
        cert = certify(target, RunConfig(target_spec=url, rules=rules, timeout=60.0))
    finally:
        target.close()
    assert for_certificate(cert) is ExitCode.TARGET_BROKEN, [
        (r.id, r.outcome.value, [f.message for f in r.failures]) for r in cert.rules]
    outcomes = {r.outcome.value for r in cert.rules}
    assert "fail" not in outcomes and "error" in outcomes
    failures = [f for r in cert.rules for f in r.failures]
    assert failures and all(f.error for f in failures)
    assert any(WORDS[fault] in f.message for f in failures), [f.message for f in failures]
    jsonschema.validate(json.loads(report_json.render(cert)), SCHEMA)
