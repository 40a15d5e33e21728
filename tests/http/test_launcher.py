"""``cmd:`` targets: start, handshake, stop on every path (conformance/transports/launcher.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from http_helpers import adapter_command, alive, gone_within, launched_kit, pids_of

from subagent_tck.conformance.core.gateway import Gateway, text
from subagent_tck.conformance.core.protocol import DeploymentConfig, ToolSpec
from subagent_tck.conformance.transports.httpd import ServerThread
from subagent_tck.conformance.transports.launcher import launch, split_command
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.spec import ErrorCode, TckError

SERVE = f"{sys.executable} -m subagent_tck.conformance.transports.http_server --port 0"


def test_the_reference_served_by_a_command_is_certifiable_and_stopped_on_close() -> None:
    target = load_target(f"cmd:{SERVE}")
    pid = target.adapter.process.pid  # type: ignore[attr-defined]
    assert target.info().name == "reference"
    gateway = Gateway()
    gateway.script("MARK", text("hello from the kit"))
    deployment = target.deploy(DeploymentConfig(tools=[ToolSpec(name="a")]), gateway)
    result = deployment.run_turn(deployment.root().agent, "MARK")
    assert result.output == "hello from the kit"
    assert gateway.requests()[0].tools[0].name == "a"  # the adapter's agent used the gateway
    deployment.close()
    target.close()
    assert gone_within([pid])
    target.close()  # closing again is harmless


def test_an_http_spec_connects_to_a_running_adapter(served: ServerThread) -> None:
    target = load_target(served.url)
    assert target.info().name == "reference"
    target.close()


def test_an_http_spec_with_nothing_listening_is_unreachable() -> None:
    with pytest.raises(TckError) as caught:
        load_target("http://127.0.0.1:9")
    assert caught.value.code is ErrorCode.TARGET_UNREACHABLE


@pytest.mark.parametrize(("spec", "argv"), [
    ("node adapter.js --port 0", ["node", "adapter.js", "--port", "0"]),
    ('"node adapter.js"', ["node", "adapter.js"]),
    ("sh -c 'exec node a.js'", ["sh", "-c", "exec node a.js"]),
])
def test_a_command_is_split_like_a_shell_line(spec: str, argv: list[str]) -> None:
    assert split_command(spec) == argv


@pytest.mark.parametrize("spec", ["", "   ", "'unbalanced"])
def test_a_command_that_cannot_be_split_is_a_usage_error(spec: str) -> None:
    with pytest.raises(TckError) as caught:
        split_command(spec)
    assert caught.value.code is ErrorCode.USAGE


def test_a_command_that_does_not_exist_is_a_usage_error() -> None:
    with pytest.raises(TckError) as caught:
        launch("/nonexistent/adapter --port 0")
    assert caught.value.code is ErrorCode.USAGE and "check the cmd: command" in str(caught.value)


def test_closing_stops_every_process_the_adapter_started(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    target = launch(adapter_command("spawner", str(pidfile)), timeout=1)
    pids = pids_of(pidfile)
    assert all(alive(p) for p in pids)
    target.close()
    assert gone_within(pids)


KIT = textwrap.dedent("""
    import signal, sys, time
    from subagent_tck.conformance.transports.launcher import AdapterProcess, split_command
    # a kit in a terminal: a hangup ends it (started under nohup, as a CI script may be, it
    # would inherit SIGHUP ignored, and the kit rightly keeps running through a hangup then)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    adapter = AdapterProcess(split_command(sys.argv[1]), grace=1.0)
    adapter.wait_ready(10)
    print("launched", flush=True)
    time.sleep(60)
""")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["kit-killed", "kit-terminated", "hangup", "ctrl-c"])
def test_the_adapter_and_its_children_stop_when_the_kit_ends_by_a_signal(
    tmp_path: Path, sig: signal.Signals
) -> None:
    pidfile = tmp_path / "pids"
    with launched_kit(KIT, adapter_command("spawner", str(pidfile))) as kit:
        pids = pids_of(pidfile)
        kit.send_signal(sig)
        kit.wait(30)  # generous: CI runs it beside real runtimes that starve both cores
        assert gone_within(pids, 30), f"left running after {sig.name}: {pids}"
    assert kit.returncode != 0


def test_the_adapter_stops_at_a_normal_interpreter_exit(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    script = KIT.replace("time.sleep(60)", "sys.exit(0)")
    kit = subprocess.run([sys.executable, "-c", script, adapter_command("spawner", str(pidfile))],
                         capture_output=True, text=True, timeout=30)
    assert kit.returncode == 0, kit.stderr
    assert gone_within(pids_of(pidfile))


def test_stopping_an_adapter_twice_is_harmless() -> None:
    target = launch(adapter_command("ignore-gateway"))
    adapter = target.adapter
    target.close()
    assert not alive(adapter.process.pid) and adapter.process.returncode is not None
    adapter.stop()
    with pytest.raises(TckError, match="closed"):
        target.info()
