"""The same promises, checked through the HTTP driver API: the roster served on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from examples.roster import broken
from examples.roster.target import make_target
from subagent_tck.conformance.core import promises_file as pf
from subagent_tck.conformance.engine.promises import check_all
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import ServerThread

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


def test_a_background_child_keeps_its_promise_over_http_and_a_foreground_one_is_an_error() -> None:
    from examples.roster.background import make_target as background_target

    text = FILE.read_text("utf-8").replace(
        'arguments = { role = "tester", task = "Task for the tester." } }',
        'arguments = { role = "tester", task = "Task for the tester.", background = true }, '
        "background = true, wait = 1 }", 1)
    file = pf.parse(text, "background.toml")
    for target, kept in ((background_target(), True), (make_target(), False)):
        with ServerThread(create_app(target, model_timeout=10.0)) as server:
            http = HttpTarget(server.url, timeout=10.0)
            try:
                report = check_all(http, file, only=["tester"])
            finally:
                http.close()
        assert report.kept is kept, [i.message for i in report.items]
        if not kept:
            assert "ran its child in the foreground" in report.items[0].message
