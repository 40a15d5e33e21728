"""Generated cases in a runtime's own filter grammar (docs/driver-api.md#dialect).

A channel whose declared grammar has entry forms (``mcp__{server}``, ``mcp__{server}__*``,
``mcp__*``, ``{prefix}*``) or a variant (case folding, allow-wins) gets cases drawn in that
grammar: global tools served by drawn servers, and restrictions whose entries are drawn among
plain names (in another case where the grammar folds case) and entries of every declared form,
their slots filled with the case's servers, tools and prefixes. The oracle
(``spec/grammar.py``) expands each entry to the tools it matches, so a server-level deny entry
must hide every tool of that server, one registered later included (TF-09), and a wildcard
allow admits what it matches and nothing else (TF-01, TF-10). No drawn entry of a form is the
name of a global tool, so an adapter tells a spelling from a tool by looking it up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec.grammar import PREFIX, Form, Grammar, Tool

from ..check import CheckContext
from ._channels import Change, Channel, Placement, judge_tools
from ._names import tool_names

#: How many tools a drawn case registers later (TF-09, TF-10).
LATER = (1, 3)
#: Server names as MCP configurations name servers: lower case, digits and ``-``, never the
#: ``_`` runtimes join a server and a tool name with (``mcp__{server}__{tool}``).
SERVER_NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,11}", fullmatch=True)


def has_spellings(channel: Channel) -> bool:
    """Whether the channel's grammar says more than the catalogue's."""
    grammar = channel.grammar
    return bool(grammar.forms) or bool(grammar.variants)


def _servers_needed(grammar: Grammar) -> bool:
    return any("{server}" in f.spelling for f in grammar.forms)


@st.composite
def _tools(draw: Any, grammar: Grammar, size: tuple[int, int], servers: Sequence[str],
           avoid: Sequence[str] = ()) -> list[Tool]:
    names = draw(tool_names(*size, avoid=avoid))
    if not servers:
        return [Tool(n) for n in names]
    return [Tool(n, draw(st.sampled_from(list(servers)))) for n in names]


def _entry(draw: Any, grammar: Grammar, tools: Sequence[Tool]) -> str:
    """A plain name (maybe in another case, where the grammar folds case) or an entry of a
    declared form with its slots filled from ``tools``."""
    choices = ["plain", *range(len(grammar.forms))]
    pick = draw(st.sampled_from(choices))
    tool: Tool = draw(st.sampled_from(list(tools)))
    if pick == "plain":
        if grammar.case_insensitive and draw(st.booleans()):
            cased: str = draw(st.sampled_from([tool.name.upper(), tool.name.lower(),
                                               tool.name.swapcase()]))
            return cased
        return tool.name
    form: Form = grammar.forms[int(pick)]
    prefix = tool.name[: draw(st.integers(0 if form.meaning == PREFIX else 1,
                                          len(tool.name)))]
    entry = form.spell(server=tool.server or "", tool=tool.name, prefix=prefix)
    if grammar.case_insensitive and draw(st.booleans()):
        entry = entry.swapcase()
    return entry


@st.composite
def spelled_st(draw: Any, channel: Channel, later: bool = False,
               keys: tuple[str, ...] = ("allow", "deny")) -> dict[str, Any]:
    """Tools (on drawn servers where the grammar names servers), one restriction over lists of
    ``keys`` the channel carries, with entries in the grammar, and (``later``) tools registered
    after it on the same servers."""
    grammar = channel.grammar
    servers: list[str] = []
    if _servers_needed(grammar):
        servers = draw(st.lists(SERVER_NAMES, min_size=1, max_size=3, unique=True))
    tools = draw(_tools(grammar, (2, 6), servers, avoid=servers))
    lists = [k for k in keys if k in channel.declared.lists]
    chosen = draw(st.sampled_from([[k] for k in lists] + ([lists] if len(lists) > 1 else [])))
    raw: dict[str, list[str]] = {}
    for key in chosen:
        entries: list[str] = []
        for _ in range(draw(st.integers(1, 4))):
            entry = _entry(draw, grammar, tools)
            if entry not in entries:
                entries.append(entry)
        raw[key] = entries
    fresh = draw(_tools(grammar, LATER, servers,
                        avoid=[*servers, *(t.name for t in tools)])) if later else []
    return {"tools": tools, "restriction": raw, "later": fresh}


def _clean(state: dict[str, Any]) -> bool:
    """No entry but a plain one is the name of a tool, one registered later included (the
    adapter could not tell a spelling from a tool)."""
    names = {t.name for t in [*state["tools"], *state["later"]]}
    plain = {t.name for t in state["tools"]}
    entries = [e for v in state["restriction"].values() for e in v]
    return all(e in plain or e not in names for e in entries)


#: The explicit cases' tools: two servers, names that are prefixes of each other.
FIXED_TOOLS = (Tool("read", "files"), Tool("read_file", "files"), Tool("write", "files"),
               Tool("fetch", "web"), Tool("fetch_all", "web"))
#: Registered after the restriction in the explicit cases: one on each server, one that the
#: prefix ``read`` matches, and one on a server no tool was on before (a server-level entry
#: for ``files`` must not reach it; a runtime that meets servers only when it starts never
#: offers it, whatever its filter: TF-09 must meet that at every seed, not only where a draw
#: happens to put a later tool on a server of its own).
FIXED_LATER = (Tool("read_more", "files"), Tool("list", "files"), Tool("fetch_more", "web"),
               Tool("notify", "mail"))


def fixed_cases(channel: Channel, later: bool, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """Cases that run at every seed: each declared form spelled for the server ``files`` (a
    prefix ``read``, the tool ``read``) alone in each list the channel carries, then a
    server-level allow beside a prefix deny; where the grammar folds case, the same in
    upper case."""
    grammar = channel.grammar
    lists = [k for k in keys if k in channel.declared.lists]
    tools = list(FIXED_TOOLS) if _servers_needed(grammar) else [Tool(t.name) for t in FIXED_TOOLS]
    fresh = ([*FIXED_LATER] if _servers_needed(grammar) else [Tool(t.name) for t in FIXED_LATER]
             ) if later else []
    entries = [f.spell(server="files", tool="read", prefix="read") for f in grammar.forms]
    if grammar.case_insensitive:
        entries += ["READ", *(e.upper() for e in entries)]
    out = [{"tools": tools, "restriction": {key: [entry]}, "later": fresh}
           for key in lists for entry in entries]
    if len(lists) == 2 and len(grammar.forms) > 1:
        out.append({"tools": tools, "restriction": {"allow": [entries[0]],
                                                     "deny": [entries[-1]]}, "later": fresh})
    return out


def spelled(ctx: CheckContext, rule: str, channels: Sequence[Channel], *, later: bool = False,
            keys: tuple[str, ...] = ("allow", "deny")) -> None:
    """``rule``'s cases in the grammar of each channel that declares one, the explicit ones
    first (with ``later``: tools registered after the restriction, TF-09/TF-10)."""
    for channel in channels:
        if not has_spellings(channel) or not any(k in channel.declared.lists for k in keys):
            continue
        words = (f"entries in {channel.label}'s grammar"
                 + (", tools registered after it" if later else ""))

        def body(state: dict[str, Any], channel: Channel = channel, words: str = words) -> None:
            changes: list[Change] = [("register", t) for t in state["later"]]
            tools = [(t.name, t.server) for t in state["tools"]]
            judge_tools(ctx, rule, state["tools"], Placement(((channel, state["restriction"]),)),
                        f"{state['restriction']} over {tools} ({words})", changes)

        for state in fixed_cases(channel, later, keys):
            body(state)
        if any(f.rule == rule for f in ctx.failures):
            continue  # decided: drawn cases would only shrink to a case like the explicit one
        ctx.for_all(spelled_st(channel, later, keys).filter(_clean), body)

