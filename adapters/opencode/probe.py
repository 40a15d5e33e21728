"""Drive the pinned opencode once against the kit's model gateway on loopback (docs/opencode.md).

A fresh project and HOME, an OpenAI-compatible provider whose ``baseURL`` is the gateway's shared
Chat Completions URL, agents as ``.opencode/agent/NAME.md`` with an agent marker in each prompt;
the root is scripted to start a child with ``task``, the child to call a tool it was not given.
Prints what the gateway saw, as JSON: each agent's first request (tools, persona), the forged
call's tool result, the requests refused as unattributed, whether the forged file exists.

    python adapters/opencode/probe.py [--scenario NAME] [--opencode PATH] [--raw FILE] [--keep]

Run it inside a network namespace with loopback only (docs/opencode.md says how) to see that
nothing leaves the machine. Not an adapter: the kit's checks are not run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from subagent_tck.conformance.core.gateway import Gateway, call, text
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.gateway_server import GatewayServer
from subagent_tck.conformance.transports.httpd import Answer, Request

HERE = Path(__file__).resolve().parent
OPENCODE = HERE / "node_modules" / ".bin" / "opencode"

#: Per scenario: the child agent's front matter lines, and what opencode.json adds.
SCENARIOS: dict[str, tuple[str, dict[str, Any]]] = {
    # the tools map hides write/edit/bash
    "tools": ("tools:\n  write: false\n  edit: false\n  bash: false\n", {}),
    # ordered permission rules instead: edit (write, edit, patch) and bash denied
    "permission": ("permission:\n  edit: deny\n  bash: deny\n", {}),
    # a misspelt tool name in the tools map
    "misspelt": ("tools:\n  wrtie: false\n", {}),
    # the child may delegate, at the default depth (1) and with subagent_depth 2
    "nested": ("tools:\n  write: false\npermission:\n  task: allow\n", {}),
    "nested-depth-2": ("tools:\n  write: false\npermission:\n  task: allow\n",
                       {"subagent_depth": 2}),
}

#: What stops opencode 1.18.33 from reaching past loopback: its own switches, and npm's (it
#: installs @opencode-ai/plugin into each config directory in the background, whatever they say).
OFFLINE = {
    **{f"OPENCODE_DISABLE_{flag}": "1" for flag in (
        "MODELS_FETCH", "AUTOUPDATE", "DEFAULT_PLUGINS", "LSP_DOWNLOAD", "SHARE",
        "CLAUDE_CODE", "EXTERNAL_SKILLS", "EMBEDDED_WEB_UI")},
    "npm_config_offline": "true",
    "npm_config_registry": "http://127.0.0.1:9/",
}


class Recording(GatewayServer):
    """The kit's gateway, keeping each raw body too (what opencode sent, byte for byte)."""

    def __init__(self) -> None:
        super().__init__(reply_timeout=30.0)
        self.raw: list[dict[str, Any]] = []

    def handle(self, request: Request) -> Answer:
        try:
            body: Any = json.loads(request.body or b"null")
        except ValueError:
            body = request.body.decode("utf-8", "replace")
        answer = super().handle(request)
        self.raw.append({"path": request.path, "status": answer.status, "body": body})
        return answer


def _agent(project: Path, name: str, front: str, persona: str) -> None:
    folder = project / ".opencode" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(
        f"---\ndescription: the {name} agent\nmode: subagent\n{front}---\n{persona}\n",
        encoding="utf-8")


def _config(base: str) -> dict[str, Any]:
    return {"$schema": "https://opencode.ai/config.json", "autoupdate": False,
            "share": "disabled", "model": "tck/subagent-tck", "small_model": "tck/subagent-tck",
            "provider": {"tck": {"npm": "@ai-sdk/openai-compatible", "name": "subagent-tck",
                                 "options": {"baseURL": f"{base}/v1", "apiKey": "none"},
                                 "models": {"subagent-tck": {"name": "subagent-tck",
                                                             "tool_call": True}}}},
            "agent": {"build": {"prompt": f"You are the root persona. {agent_marker('root')}"}}}


def probe(scenario: str, opencode: Path, timeout: float, keep: bool = False) -> dict[str, Any]:
    server = Recording().start()
    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: agent in ("root", "child", "grandchild"))
    work = Path(tempfile.mkdtemp(prefix="subagent-tck-opencode-"))
    home, project = work / "home", work / "project"
    home.mkdir()
    project.mkdir()
    front, extra = SCENARIOS[scenario]
    config = {**_config(base), **extra}
    (project / "opencode.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    _agent(project, "child", front, f"You are the child persona. "
           f"{agent_marker('child')}")
    _agent(project, "grandchild", "", f"You are the grandchild persona. "
           f"{agent_marker('grandchild')}")
    forged = project / "forged.txt"
    gateway.script("ROOT-MARK", call("task", {"description": "probe", "prompt": "CHILD-MARK go",
                                              "subagent_type": "child"}), text("root done"))
    child: list[Any] = [call("write", {"filePath": str(forged), "content": "x"}, "forged-1")]
    if scenario.startswith("nested"):
        child.insert(0, call("task", {"description": "deeper", "prompt": "GRANDCHILD-MARK go",
                                      "subagent_type": "grandchild"}, "task-2"))
    gateway.script("CHILD-MARK", *child, text("child done"))
    gateway.script("GRANDCHILD-MARK", text("grandchild done"), required=False)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TERM": "dumb",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
           "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local/state"),
           **OFFLINE}
    began = time.monotonic()
    run = subprocess.Popen([str(opencode), "run", "--pure", "--title", "probe", "--print-logs",
                            "ROOT-MARK: start the probe"],
                           cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        out, err = run.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        out, err = run.communicate()
        err += f"\nlevel=ERROR opencode did not finish within {timeout:g} s: killed"
    finally:
        with contextlib.suppress(ProcessLookupError):  # what it left in its session
            os.killpg(run.pid, signal.SIGKILL)
    seconds = round(time.monotonic() - began, 1)
    server.close()
    written = forged.exists()
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    first: dict[str, Any] = {}
    for agent in ("root", "child", "grandchild"):
        requests = gateway.requests(agent)
        if requests:
            first[agent] = {"requests": len(requests),
                            "tools": [t.name for t in requests[0].tools],
                            "persona": requests[0].system.split("\n", 1)[0]}
    calls = {m.toolCallId: m.content for r in gateway.requests("child") for m in r.messages
             if m.role == "tool"}
    return {"scenario": scenario, "exit": run.returncode, "seconds": seconds, "agents": first,
            "forged_call_result": str(calls.get("forged-1"))[:300],
            "nested_task_result": str(calls.get("task-2"))[:300] if "task-2" in calls else None,
            "forged_file_written": written, "kept": str(work) if keep else None,
            "unattributed": [u.reason[:120] for u in gateway.unattributed],
            "warnings": [line[:300] for line in err.splitlines() if "level=WARN" in line
                         or "level=ERROR" in line],
            "stdout": out[-500:], "raw": server.raw}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="tools")
    parser.add_argument("--opencode", type=Path, default=OPENCODE)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--raw", type=Path, help="write every raw request body to this file")
    parser.add_argument("--keep", action="store_true",
                        help="keep the project and HOME directories (their path is printed)")
    args = parser.parse_args()
    if not args.opencode.exists():
        print(f"no opencode at {args.opencode}: run `npm install` in {HERE}", file=sys.stderr)
        return 2
    found = probe(args.scenario, args.opencode, args.timeout, args.keep)
    raw = found.pop("raw")
    if args.raw:
        args.raw.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    print(json.dumps(found, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
