"""The opencode adapter when opencode misbehaves (docs/opencode.md#robustness), with stand-ins
for ``opencode serve``: one that never listens, one whose turn never ends, one that exits at
once. Each ends the operation with an error within its timeout, and nothing the stand-in started
is left running once the deployment is closed."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import psutil
import pytest
from http_helpers import gone_within, timed_out

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "opencode"))

from opencode_adapter import serve, target
from opencode_adapter.proxy import Proxy

from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.spec import ErrorCode, TckError

#: A stand-in for ``opencode serve``: leaves a ``sleep`` behind (its pid in PIDS), then, by
#: MODE, never listens, listens and never ends a turn, or exits at once.
FAKE = '''#!{python}
import http.server, json, os, subprocess, sys, time
pids, mode = {pids!r}, {mode!r}
with open(pids, "w") as out:
    out.write(str(subprocess.Popen(["sleep", "60"]).pid))
if mode == "exit":
    sys.exit(3)
if mode == "silent":
    time.sleep(60)

class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.endswith("/message"):
            time.sleep(60)  # the turn never ends
        body = json.dumps({{"id": "ses_1"}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"opencode server listening on http://127.0.0.1:{{server.server_port}}", flush=True)
server.serve_forever()
'''


def _deployment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str,
                ) -> tuple[target.OpencodeDeployment, Proxy, Path]:
    pids = tmp_path / "pids"
    fake = tmp_path / "opencode"
    fake.write_text(FAKE.format(python=sys.executable, pids=str(pids), mode=mode),
                    encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setattr(serve, "OPENCODE", fake)
    monkeypatch.setattr(serve, "STARTUP", 2.0)
    monkeypatch.setattr(target, "RUN_TIMEOUT", 1.0)
    proxy = Proxy()
    deployment = target.OpencodeDeployment(DeploymentConfig(), "http://127.0.0.1:9/d/g1",
                                           proxy, "d1", [])
    return deployment, proxy, pids


@pytest.mark.parametrize("mode", ["silent", "exit"])
def test_an_opencode_that_never_listens_or_exits_at_once_ends_the_run_with_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    deployment, proxy, pids = _deployment(tmp_path, monkeypatch, mode)
    try:
        started = time.monotonic()
        with pytest.raises(TckError) as refused:
            deployment.run_turn("root", "hello")
        if mode == "silent":
            assert refused.value.code is ErrorCode.TIMEOUT
            assert "did not listen" in refused.value.message
        else:
            assert refused.value.code is ErrorCode.TARGET_UNREACHABLE
            assert "exited (3) before it listened" in refused.value.message
        assert time.monotonic() - started < 6
        assert [(e.kind, e.data) for e in deployment.events()] == [
            ("run.started", {}), ("run.stopped", {"stopReason": "error"})]
        assert gone_within([int(pids.read_text())], 3.0)  # its group went with it
    finally:
        deployment.close()
        proxy.close()
    assert not deployment.dir.exists()


def test_a_turn_that_never_ends_is_a_timeout_and_closing_stops_everything_it_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deployment, proxy, pids = _deployment(tmp_path, monkeypatch, "hang")
    try:
        timed_out(lambda: deployment.run_turn("root", "hello"), 8)
        left = int(pids.read_text())
        assert psutil.pid_exists(left)  # the server lives on with its deployment
    finally:
        deployment.close()
        proxy.close()
    assert gone_within([left], 3.0)
    assert not deployment.dir.exists()


#: opencode 1.18.33's answer to POST /session when an agent file's permission mapping holds a
#: list where a rule belongs (read from a certify run of TF-07 against the real opencode).
CONFIG_INVALID = ('{"name":"ConfigInvalidError","data":{"path":"/tmp/p/.opencode/agent/'
                  'tck-preset-0.md","issues":[{"path":["permission","allow"],"message":'
                  '"Expected PermissionRuleConfig, got [\\"get_weather\\"]"}]}}')


def test_opencode_refusing_a_permission_mapping_is_a_refused_tool_filter() -> None:
    exc = serve.refusal("POST", "/session", 400, CONFIG_INVALID)
    assert exc.code is ErrorCode.INVALID_TOOL_FILTER
    assert "tck-preset-0.md" in exc.message and "permission.allow" in exc.message
    assert "/tmp/p" not in exc.message  # the scratch folder says nothing to the reader


def test_opencode_refusing_its_depth_setting_is_a_refused_depth() -> None:
    depth = CONFIG_INVALID.replace('["permission","allow"]', '["subagent_depth"]')
    assert serve.refusal("POST", "/session", 400, depth).code is ErrorCode.INVALID_DEPTH


def test_opencode_refusing_another_part_of_its_configuration_is_invalid_config() -> None:
    other = CONFIG_INVALID.replace('["permission","allow"]', '["model"]')
    assert serve.refusal("POST", "/session", 400, other).code is ErrorCode.INVALID_CONFIG


@pytest.mark.parametrize(("status", "text"), [
    (400, "not json"), (500, CONFIG_INVALID), (400, '{"name": "NotFoundError"}'), (400, "[]")])
def test_any_other_error_answer_of_opencode_stays_a_protocol_error(status: int,
                                                                   text: str) -> None:
    assert serve.refusal("POST", "/session", status, text).code is ErrorCode.PROTOCOL_ERROR


def test_a_config_refusal_without_readable_issues_is_still_invalid_config() -> None:
    odd = '{"name": "ConfigInvalidError", "data": "odd"}'
    exc = serve.refusal("POST", "/session", 400, odd)
    assert exc.code is ErrorCode.INVALID_CONFIG and "(?)" in exc.message
