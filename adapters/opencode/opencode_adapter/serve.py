"""One ``opencode serve`` of a deployment: started in the deployment's project directory with an
isolated HOME and opencode's offline switches, driven over its HTTP API on 127.0.0.1, killed as
a process group (docs/opencode.md, "Running it").

The API calls the adapter makes (opencode 1.18.33): ``POST /session`` (a session, with a title:
without one opencode asks the model for a title first), ``POST /session/{id}/message`` (a user
message; answers when the agent's turn is over, with the last assistant message),
``GET /session/{id}/children`` and ``GET /session/{id}/message`` (what a task's child did),
``POST /session/{id}/abort``, ``POST /instance/dispose`` (the next call reads the project's
configuration again: an agent definition written since is known) and ``GET /event`` (when a
changed tool list is taken in: events.py).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from subagent_tck.conformance.transports import traffic_runs
from subagent_tck.spec import ErrorCode, TckError

from .events import ToolEvents

HERE = Path(__file__).resolve().parent
OPENCODE = HERE.parent / "node_modules" / ".bin" / "opencode"
READY = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")
STARTUP = float(os.environ.get("SUBAGENT_TCK_OPENCODE_STARTUP", "60"))

#: What keeps opencode 1.18.33 on loopback: its own switches, and npm's (it installs
#: @opencode-ai/plugin into each config directory in the background, whatever they say):
#: docs/opencode.md, "What stops opencode from phoning home".
OFFLINE = {
    **{f"OPENCODE_DISABLE_{flag}": "1" for flag in (
        "MODELS_FETCH", "AUTOUPDATE", "DEFAULT_PLUGINS", "LSP_DOWNLOAD", "SHARE",
        "CLAUDE_CODE", "EXTERNAL_SKILLS", "EMBEDDED_WEB_UI")},
    "npm_config_offline": "true",
    "npm_config_registry": "http://127.0.0.1:9/",
}


def environment(home: Path) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TERM": "dumb",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
           "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local/state"),
           "NO_PROXY": "127.0.0.1,localhost", **OFFLINE}
    return traffic_runs.marked(env)  # the kit's marker: its cleanup finds opencode


#: A configuration issue's key, and the refusal it is in the kit's terms (:func:`refusal`).
REFUSED_KEYS = {"permission": ErrorCode.INVALID_TOOL_FILTER,
                "subagent_depth": ErrorCode.INVALID_DEPTH}
#: Every code :func:`refusal` gives a configuration opencode refused.
CONFIG_REFUSALS = frozenset({*REFUSED_KEYS.values(), ErrorCode.INVALID_CONFIG})


def refusal(method: str, path: str, status: int, text: str) -> TckError:
    """What an error answer of opencode is in the kit's terms. opencode validates the project's
    configuration (opencode.json and each .opencode/agent/NAME.md) when a call first reads it,
    and answers 400 ``ConfigInvalidError`` listing the issues: a refusal of the configuration
    the kit asked for, not a broken exchange. An issue in a ``permission`` mapping (where the
    adapter writes a tool filter, docs/opencode.md) is a refused filter, INVALID_TOOL_FILTER
    (docs/rules.md#TF-07); one in ``subagent_depth`` (the cap) a refused depth, INVALID_DEPTH
    (docs/rules.md#DE-05); any other issue is INVALID_CONFIG (:data:`CONFIG_REFUSALS`).
    Anything else stays a PROTOCOL_ERROR."""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if status == 400 and isinstance(body, dict) and body.get("name") == "ConfigInvalidError":
        data = body.get("data") if isinstance(body.get("data"), dict) else {}
        issues = [i for i in data.get("issues") or [] if isinstance(i, dict)]
        where = [[str(p) for p in i.get("path") or []] for i in issues]
        code = ErrorCode.INVALID_CONFIG
        for key, refused in REFUSED_KEYS.items():
            if any(key in w for w in where):
                code = refused
                break
        said = "; ".join(f"{'.'.join(w) or '(root)'}: {str(i.get('message', ''))[:200]}"
                         for w, i in zip(where, issues, strict=True))
        file = Path(str(data.get("path", "?"))).name
        return TckError(code, f"opencode refused its configuration ({file}): {said[:800]}")
    return TckError(ErrorCode.PROTOCOL_ERROR, f"opencode answered {method} {path} with "
                    f"{status}: {text[:500]}")


class Serve:
    def __init__(self, project: Path, home: Path, timeout: float) -> None:
        if not OPENCODE.exists():
            raise TckError(ErrorCode.USAGE, f"{OPENCODE} is missing: run `cd adapters/opencode "
                           "&& npm install`")
        self.timeout = timeout
        self.log: collections.deque[str] = collections.deque(maxlen=200)
        self.process = subprocess.Popen(
            [str(OPENCODE), "serve", "--pure", "--port", "0", "--hostname", "127.0.0.1",
             "--print-logs", "--log-level", "WARN"],
            cwd=project, env=environment(home), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
            **traffic_runs.own_group())  # killed whole, still in the adapter's session
        found: list[str] = []
        ready = threading.Event()

        def pump() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                self.log.append(line.rstrip("\n"))
                match = READY.search(line)
                if match and not found:
                    found.append(match.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=pump, name="opencode serve output", daemon=True).start()
        began = time.monotonic()
        ready.wait(STARTUP)
        if not found:
            exited = self.process.poll()
            self.close()
            if exited is not None:
                raise TckError(ErrorCode.TARGET_UNREACHABLE, f"opencode serve exited ({exited}) "
                               f"before it listened: {self.tail()}")
            raise TckError(ErrorCode.TIMEOUT, f"opencode serve did not listen within "
                           f"{time.monotonic() - began:.0f} s (SUBAGENT_TCK_OPENCODE_STARTUP): "
                           f"{self.tail()}")
        self.url = found[0]
        self.client = httpx.Client(base_url=self.url, timeout=httpx.Timeout(timeout),
                                   trust_env=False)
        self.events = ToolEvents(self.url, lambda: self.process.poll() is None)

    def tail(self, lines: int = 8) -> str:
        return " | ".join(list(self.log)[-lines:])[-1500:]

    def call(self, method: str, path: str, body: Any = None) -> Any:
        try:
            answer = self.client.request(method, path, json=body)
        except httpx.TimeoutException:
            raise TckError(ErrorCode.TIMEOUT, f"opencode did not answer {method} {path} within "
                           f"{self.timeout:g} s (SUBAGENT_TCK_OPENCODE_TIMEOUT)") from None
        except httpx.HTTPError as exc:
            raise TckError(ErrorCode.TARGET_UNREACHABLE, f"opencode serve is unreachable "
                           f"({exc}; exit {self.process.poll()}): {self.tail()}") from None
        if answer.status_code >= 400:
            raise refusal(method, path, answer.status_code, answer.text)
        return answer.json() if answer.content else None

    def session(self, title: str) -> str:
        return str(self.call("POST", "/session", {"title": title})["id"])

    def prompt(self, session: str, text: str) -> Any:
        """Send ``text`` to the root agent of ``session``; the answer of the turn."""
        try:
            return self.call("POST", f"/session/{session}/message",
                             {"parts": [{"type": "text", "text": text}]})
        except TckError as exc:
            if exc.code is ErrorCode.TIMEOUT:
                self.abort(session)
            raise

    def abort(self, session: str) -> None:
        with contextlib.suppress(httpx.HTTPError):
            self.client.post(f"/session/{session}/abort", timeout=5)

    def reload(self) -> None:
        """The next call reads the project's configuration (its agents) again (the dispose
        may end the event stream: a new one is followed, events.py)."""
        self.call("POST", "/instance/dispose")
        self.events.reconnect()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for part in (getattr(self, "events", None), getattr(self, "client", None)):
            if part is not None:
                part.close()
