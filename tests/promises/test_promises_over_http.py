"""The same promises, checked through the HTTP driver API: the roster served on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from examples.roster import broken
from examples.roster.target import make_target
from subagent_tck.conformance import promises_file as pf
from subagent_tck.conformance.http_server import create_app
from subagent_tck.conformance.http_target import HttpTarget
from subagent_tck.conformance.httpd import ServerThread
from subagent_tck.conformance.promises import check_all

FILE = Path(__file__).resolve().parents[2] / "examples" / "roster" / "promises.toml"


def _over_http(target: object, only: list[str]) -> dict[str, str]:
    with ServerThread(create_app(target, model_timeout=10.0)) as server:
        http = HttpTarget(server.url, timeout=10.0)
        try:
            report = check_all(http, pf.load(FILE), only=only)
        finally:
            http.close()
    return {i.aspect: i.status for i in report.items}


def test_the_served_roster_keeps_its_promises_over_http() -> None:
    status = _over_http(make_target(), ["reviewer-strict", "batch-summarizer"])
    assert set(status.values()) == {"kept"} and "refuses:delegation" in status


def test_a_served_child_that_delegates_again_breaks_its_promise_over_http() -> None:
    status = _over_http(broken.delegates_again(), ["researcher"])
    assert status["refuses:delegation"] == "broken" and status["tools"] == "broken"
