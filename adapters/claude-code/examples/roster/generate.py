#!/usr/bin/env python3
"""The shared roster (examples/roster/roster.json) as Claude Code agent definitions, and the
promises file that checks them on the model wire (docs/promises.md#claude-code).

    python adapters/claude-code/examples/roster/generate.py [--out DIR] [--variant NAME] [--check]

writes ``DIR/agents/ROLE.md`` for every role (front matter ``name``, ``description``, ``tools`` =
the role's capability set as Claude Code names the kit's host tools, ``model`` = the role's tier
as a Claude Code model alias; body = the role's persona) and ``DIR/promises.toml`` (one promise
per role: the parent's model calls Claude Code's ``Agent`` tool with ``subagent_type`` = the
role). DIR defaults to this directory, where the generated files are committed; ``--check``
writes nothing and exits 1 when they differ from what the roster gives. ``--variant NAME``
writes a definition set that breaks one role's promise (:data:`VARIANTS`), for the test that
shows the check fails naming the role.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
ROSTER = REPO / "examples" / "roster" / "roster.json"
#: How Claude Code names the kit's host tool NAME: the adapter serves the kit's tools from its
#: MCP server ``tck`` (the kit's conformance/transports/mcp_echo.py).
MCP_PREFIX = "mcp__tck__"
#: The roster's tier models as Claude Code models (an agent definition's ``model``).
#: Full model ids, sent by Claude Code as written; an alias (``opus``) would be resolved by the
#: pinned Claude Code first (2.1.197: opus -> claude-opus-4-8), so its promise would name the
#: resolved id (docs/promises.md#claude-code).
MODELS = {"large": "claude-opus-4-8", "medium": "claude-sonnet-5",
          "small": "claude-haiku-4-5-20251001"}
PARENT_PERSONA = "You are the orchestrator of this workspace; you decide who does what."
READ_SCHEMA = ('{ type = "object", properties = { path = { type = "string" } }, '
               'required = ["path"] }')

Role = dict[str, Any]


def _review_gets_write(role: Role, data: dict[str, Any]) -> Role:
    return {**role, "capability": "workspace"} if role["id"] == "reviewer-strict" else role


def _batch_gets_tools(role: Role, data: dict[str, Any]) -> Role:
    return {**role, "capability": "read-only"} if role["id"] == "batch-summarizer" else role


def _delegates_again(role: Role, data: dict[str, Any]) -> Role:
    return {**role, "capability": None} if role["id"] == "researcher" else role


def _tier_dropped(role: Role, data: dict[str, Any]) -> Role:
    return {**role, "tier": None} if role["id"] == "tester" else role


def _persona_leaks(role: Role, data: dict[str, Any]) -> Role:
    if role["id"] != "planner":
        return role
    return {**role, "prompt": PARENT_PERSONA + "\n" + role["prompt"]}


#: variant -> (how it changes a role, the role whose promise it breaks, the aspects that fail)
VARIANTS: dict[str, tuple[Callable[[Role, dict[str, Any]], Role], str, tuple[str, ...]]] = {
    "review_gets_write": (_review_gets_write, "reviewer-strict", ("tools", "refuses:calls")),
    "batch_gets_tools": (_batch_gets_tools, "batch-summarizer", ("tools", "refuses:calls")),
    "persona_leaks": (_persona_leaks, "planner", ("persona",)),
    # no `tools` line: the child gets every tool its parent has, Agent included, and delegates
    "delegates_again": (_delegates_again, "researcher",
                        ("tools", "refuses:calls", "refuses:delegation")),
    # no `model` line: the child runs with the parent's model, not its tier's
    "tier_dropped": (_tier_dropped, "tester", ("model",)),
}


def roster(path: Path = ROSTER) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def tools_of(data: dict[str, Any], role: Role) -> list[str] | None:
    """The role's host tools; None for a role with no capability set (a broken variant)."""
    return list(data["capabilities"][role["capability"]]) if role["capability"] else None


def model_of(data: dict[str, Any], role: Role) -> str | None:
    return MODELS[data["tiers"][role["tier"]]["model"]] if role["tier"] else None


def definition(data: dict[str, Any], role: Role) -> str:
    """The Claude Code agent definition of one role."""
    tools = tools_of(data, role)
    description = f"Roster role {role['id']}: {role['kind']} work, as the roster routes it."
    lines = ["---", f"name: {role['id']}", f"description: {_quote(description)}"]
    if tools is not None:  # an empty list: no tool at all (without `tools`: every tool)
        lines.append(f"tools: {json.dumps([MCP_PREFIX + t for t in tools])}")
    model = model_of(data, role)
    if model is not None:
        lines.append(f"model: {model}")
    lines += ["---", role["prompt"], ""]
    return "\n".join(lines)


def promises(data: dict[str, Any]) -> str:
    """The promises file: the shared roster's promises, triggered through Claude Code's Agent."""
    tools = sorted({t for ts in data["capabilities"].values() for t in ts} - {"read"})
    order = ["grep", "glob", "edit", "write", "bash", "web_fetch"]
    host = [t for t in order if t in tools] + [t for t in tools if t not in order]
    out = [
        "# What the roster's Claude Code agent definitions (agents/*.md) promise each child.",
        "# Generated from examples/roster/roster.json by generate.py; check:",
        "#   subagent-tck promises --target 'cmd:python adapters/claude-code/server.py",
        "#       --agents-dir adapters/claude-code/examples/roster/agents'",
        "#       adapters/claude-code/examples/roster/promises.toml",
        "# A Claude Code subagent is never offered Agent, so no child delegates again",
        "# (refuses.delegation is kept); Claude Code has no depth setting to promise instead.",
        "version = 1",
        "",
        "[deployment]",
        'edition = "preset-composition"',
        f"persona = {_quote(PARENT_PERSONA)}",
        'plugin_tools = ["Agent"]            # Claude Code\'s own delegation tool',
        "tools = [",
        '  { name = "read", description = "Read a file.", parameters = '
        + READ_SCHEMA + " },",
        *(["  " + ", ".join(_quote(t) for t in host) + ","] if host else []),
        "]",
    ]
    for role in data["roles"]:
        granted = tools_of(data, role) or []
        arguments = (f"subagent_type = {_quote(role['id'])}, description = "
                     f"{_quote('Roster ' + role['id'])}, prompt = "
                     f"{_quote('Task for the ' + role['id'] + '.')}")
        promised = f"exactly = {json.dumps(granted)}"
        if role["kind"] in ("review", "research"):  # never a write or execute tool
            never = sorted({"bash", "edit", "write", "web_fetch"} - set(granted))
            promised += f", never = {json.dumps(never)}"
        elif role["kind"] == "batch":  # never any tool
            promised += f", never = {json.dumps(sorted(['read', *host]))}"
        out += ["", "[[promise]]", f"id = {_quote(role['id'])}",
                f'trigger = {{ tool = "Agent", arguments = {{ {arguments} }} }}',
                f"persona = {{ contains = [{_quote(role['prompt'])}] }}",
                f"tools = {{ {promised} }}"]
        if "read" in granted:
            out.append(f"schemas.read = {READ_SCHEMA}")
        out.append(f"model = {_quote(model_of(data, role) or '')}")
    return "\n".join(out) + "\n"


def files(data: dict[str, Any], variant: str | None = None) -> dict[str, str]:
    """Every generated file (path relative to the output directory -> text)."""
    change = VARIANTS[variant][0] if variant else (lambda role, _: role)
    out = {f"agents/{role['id']}.md": definition(data, change(role, data))
           for role in data["roles"]}
    out["promises.toml"] = promises(data)
    return out


def write(out: Path, variant: str | None = None, data: dict[str, Any] | None = None) -> None:
    for name, text in files(data or roster(), variant).items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def stale(out: Path = HERE) -> list[str]:
    """The generated files under ``out`` that differ from the roster's (or are missing)."""
    wanted = files(roster())
    have = {str(p.relative_to(out)) for p in (out / "agents").glob("*.md")}
    wrong = [n for n, text in wanted.items() if not (out / n).is_file()
             or (out / n).read_text(encoding="utf-8") != text]
    return sorted(set(wrong) | (have - set(wanted)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--variant", choices=sorted(VARIANTS))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale(args.out)
        for name in wrong:
            print(f"stale: {args.out / name}: run {Path(__file__).name} to regenerate",
                  file=sys.stderr)
        return 1 if wrong else 0
    write(args.out, args.variant)
    return 0


if __name__ == "__main__":
    sys.exit(main())
