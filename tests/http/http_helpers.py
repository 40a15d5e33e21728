"""Helpers of the HTTP transport's tests (a module, not a conftest, so tests can import it)."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from subagent_tck.conformance.core.gateway import Gateway, text
from subagent_tck.conformance.core.protocol import (
    Message,
    ModelReply,
    ModelRequest,
    StartRequest,
    ToolCall,
    ToolSchema,
)
from subagent_tck.conformance.transports.gateway_chat import CONTEXT_PREFIX
from subagent_tck.spec import ErrorCode, TckError

FIXTURES = Path(__file__).with_name("fixtures")


def adapter_command(mode: str, *args: str, script: str = "broken_adapter.py") -> str:
    """The ``cmd:`` command line of a fixture adapter (fixtures/broken_adapter.py unless
    ``script`` names another one)."""
    return shlex.join([sys.executable, str(FIXTURES / script), mode, *args])


def ctrl_c_as_from_a_shell() -> None:
    """``preexec_fn`` of a kit a test will press Ctrl-C on: SIGINT at its default disposition,
    as a shell starts a command, whatever the test process's is (a process that starts with
    SIGINT ignored keeps ignoring it, and then no Ctrl-C reaches the kit at all; on Python 3.10
    in CI these tests' kits once never saw theirs)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ctrl_c(process: subprocess.Popen[str], ready: Callable[[], bool], *, settle: float = 0.0,
           wait: float = 60.0, timeout: float = 90.0) -> str:
    """Once ``ready()`` (polled for up to ``wait`` seconds) and ``settle`` seconds more, press
    Ctrl-C on ``process`` (SIGINT) and wait for it to end (``timeout``: generous, since CI runs
    these beside real runtimes that starve both cores for seconds at a time): its stderr. It
    never outlives the call (killed if it did not end)."""
    try:
        started = time.monotonic()
        while not ready() and time.monotonic() - started < wait:
            time.sleep(0.05)
        time.sleep(settle)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=timeout)
        return err
    finally:
        if process.poll() is None:
            process.kill()


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie no longer runs)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


def gone_within(pids: list[int], seconds: float = 5.0) -> bool:
    """True once none of ``pids`` runs, waiting at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def timed_out(call: Callable[[], Any], within: float) -> TckError:
    """The TIMEOUT error ``call`` ends with, within ``within`` seconds."""
    started = time.monotonic()
    with pytest.raises(TckError) as refused:
        call()
    assert refused.value.code is ErrorCode.TIMEOUT, refused.value
    assert time.monotonic() - started < within
    return refused.value


def pids_of(pidfile: Path, seconds: float = 10.0) -> list[int]:
    """The pids a fixture adapter wrote to ``pidfile`` (at least two), waiting at most
    ``seconds`` for them."""
    deadline = time.monotonic() + seconds
    while not pidfile.exists() or len(pidfile.read_text().split()) < 2:
        assert time.monotonic() < deadline, "the adapter never wrote its pids"
        time.sleep(0.02)
    return [int(p) for p in pidfile.read_text().split()]


@contextmanager
def launched_kit(script: str, command: str) -> Iterator[subprocess.Popen[str]]:
    """A kit process running ``script`` with the adapter ``command`` line as its argument,
    once it printed ``launched``; killed on the way out if it still runs."""
    kit = subprocess.Popen([sys.executable, "-c", script, command],
                           preexec_fn=ctrl_c_as_from_a_shell,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert kit.stdout is not None and kit.stdout.readline().strip() == "launched"
        yield kit
    finally:
        if kit.poll() is None:
            kit.kill()
            kit.wait()


#: Any UTF-8 text (no surrogates), short: what the gateways' wire tests draw names and texts from.
words = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
arguments = st.dictionaries(words, st.one_of(st.integers(-5, 5), words, st.booleans()),
                            max_size=3)


#: Non-empty texts of any code point but surrogates, as a wire carries ids and names.
ids = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=16)


def probe(name: str) -> Any:
    """A runtime's traffic recorded in fixtures/``name`` (a JSON file)."""
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def tool_calls(ids: st.SearchStrategy[str]) -> st.SearchStrategy[list[ToolCall]]:
    """Up to two tool calls whose ids and names are drawn from ``ids``."""
    return st.lists(st.builds(ToolCall, id=ids, name=ids, arguments=arguments), max_size=2)


def model_requests(calls: st.SearchStrategy[list[ToolCall]],
                   system: st.SearchStrategy[str] = words,
                   **more: st.SearchStrategy[Any]) -> st.SearchStrategy[ModelRequest]:
    """Model requests as a gateway wire must carry them: user texts that are not context
    notices, assistant turns with ``calls``, tool results each answering a call an earlier
    assistant turn made; ``more`` draws further fields."""
    messages = st.one_of(
        st.builds(Message, role=st.just("user"), content=words.filter(
            lambda t: not t.startswith(CONTEXT_PREFIX))),
        st.builds(Message, role=st.just("assistant"), content=st.none() | words,
                  toolCalls=calls),
        st.builds(Message, role=st.just("tool"), content=words, toolCallId=words,
                  isError=st.booleans()),
    )
    return st.builds(
        ModelRequest, agent=words, system=system,
        tools=st.lists(st.builds(ToolSchema, name=words, description=words,
                                 parameters=st.just({"type": "object"})), max_size=3),
        messages=st.lists(messages, max_size=5), context=st.lists(words, max_size=2), **more,
    ).map(_answering)


def _answering(request: ModelRequest) -> ModelRequest:
    """``request`` with each tool result made to answer the latest call made before it (one
    with none before it left out)."""
    kept: list[Message] = []
    for message in request.messages:
        made = [c.id for m in kept for c in m.toolCalls]
        if message.role != "tool":
            kept.append(message)
        elif made:
            kept.append(message.model_copy(update={"toolCallId": made[-1]}))
    return request.model_copy(update={"messages": kept})


def failing_and_stalling(gateway: Gateway, fail: str, stall: str) -> threading.Event:
    """Script the agent marked ``fail`` to raise and the one marked ``stall`` to wait (up to
    5 s) until the returned event is set: a gateway's error and stall answers."""
    release = threading.Event()

    def boom(request: ModelRequest) -> ModelReply:
        raise RuntimeError("scripted failure")

    def stalled(request: ModelRequest) -> ModelReply:
        release.wait(5)
        return text("late")

    gateway.script(fail, boom)
    gateway.script(stall, stalled)
    return release


#: How a start composes its child's model (docs/rules.md#MO-01): by its preset, its request,
#: both (the request wins), or neither (the parent's).
MODEL_ROUTES = ("preset", "request", "both", "none")


def model_start(deployment: Any, route: str, preset_model: str,
                request_model: str) -> tuple[str, str | None]:
    """Start a child of a traffic adapter's ``deployment`` (its presets: one, ``p``, on
    ``preset_model``) composed by ``route``, the runtime left out: the child's agent
    definition as the adapter wrote it when the start would run the runtime, and the model
    the oracle composes."""
    written: list[str] = []

    def stop(start: Any) -> Any:
        written.append((deployment.agents_dir / f"{start.child.file}.md")
                       .read_text(encoding="utf-8"))
        raise TckError(ErrorCode.TIMEOUT, "stand-in for the runtime")

    deployment._run_start = stop
    fields: dict[str, Any] = {}
    if route in ("preset", "both"):
        fields["preset"] = "p"
    if route in ("request", "both"):
        fields["model"] = request_model
    with pytest.raises(TckError):
        deployment.start(StartRequest(parent="root", provider=deployment.provider,
                                      prompt="go", **fields))
    want = request_model if route in ("request", "both") else \
        preset_model if route == "preset" else None
    return written[0], want


def start_child(deployment: Any, provider: str, parent: str, preset: str,
                **controls: Any) -> Any:
    """Start a child of ``parent`` in a traffic adapter's ``deployment`` through ``provider``,
    composed by ``preset`` and the start's ``controls``, with the prompt ``go``."""
    return deployment.start(StartRequest(parent=parent, provider=provider, prompt="go",
                                         preset=preset, **controls))


def front_lines(definition: str, key: str) -> list[str]:
    """The lines of an agent definition's front matter that set ``key``."""
    return [line for line in definition.split("---")[1].splitlines()
            if line.startswith(f"{key}:")]
