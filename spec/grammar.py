"""What a filter entry matches under a runtime's declared grammar (docs/rules.md#TF-01, and the
dialect a target declares: docs/driver-api.md#dialect).

The catalogue's grammar is a tool's own name, matched exactly, with allow before deny (allow
minus deny). A runtime may document more: entries that name every tool of a server
(``mcp__{server}``), every tool (``mcp__*``), the tools whose name starts with a prefix
(``{prefix}*``), a tool's full name (``mcp__{server}__{tool}``); and it may match names ignoring
case, or let the allow list win over the deny list. :class:`Grammar` is such a declaration and
:func:`expand` reads a raw restriction under it into the catalogue's :class:`Restriction` over
the tools registered *now*: a server-level deny entry hides a tool registered on that server
later (TF-09), as a plain one hides a tool of its name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .restriction import Restriction

#: What an entry of a form matches (the meanings of docs/driver-api.md#dialect).
TOOL, SERVER, ALL, PREFIX = "tool", "server", "all", "prefix"
DENY_WINS, ALLOW_WINS = "deny-wins", "allow-wins"


@dataclass(frozen=True)
class Form:
    """An entry spelling with ``{server}``, ``{tool}`` or ``{prefix}`` slots, and its meaning."""

    spelling: str
    meaning: str

    def spell(self, *, server: str = "", tool: str = "", prefix: str = "") -> str:
        """An entry of this form with its slots filled."""
        return (self.spelling.replace("{server}", server).replace("{tool}", tool)
                .replace("{prefix}", prefix))

    def pattern(self, fold: bool, server: str | None = None, tool: str | None = None
                ) -> re.Pattern[str]:
        """The entries of this form: a slot given here is that text, any other a named group
        (a prefix may be empty). Fixing the server and the tool keeps a server or tool name
        that contains the form's own separators from being read two ways."""
        fixed = {"{server}": server, "{tool}": tool}
        parts = re.split(r"(\{server\}|\{tool\}|\{prefix\})", self.spelling)
        out = ""
        for index, part in enumerate(parts):
            if not index % 2:
                out += re.escape(part)
            elif fixed.get(part) is not None:
                out += re.escape(str(fixed[part]))
            else:
                out += f"(?P<{part[1:-1]}>.{'*' if part == '{prefix}' else '+'}?)"
        return re.compile(out, re.IGNORECASE | re.DOTALL if fold else re.DOTALL)


@dataclass(frozen=True)
class Grammar:
    """A runtime's filter grammar; the default is the catalogue's own."""

    forms: tuple[Form, ...] = ()
    case_insensitive: bool = False
    precedence: str = DENY_WINS

    @property
    def variants(self) -> tuple[str, ...]:
        """How it differs from the catalogue's grammar (docs/rules.md#TF-01), in words."""
        out = []
        if self.case_insensitive:
            out.append("case folding: entries match tool names ignoring case (the catalogue "
                       "compares names exactly)")
        if self.precedence == ALLOW_WINS:
            out.append("precedence allow-wins: with both lists, a name the allow list matches "
                       "is admitted (the catalogue: allow minus deny)")
        return tuple(out)


CATALOGUE = Grammar()


@dataclass(frozen=True)
class Tool:
    """A global tool as an entry sees it: its name and the server it is served by."""

    name: str
    server: str | None = None


def _same(one: str, other: str, fold: bool) -> bool:
    return one.lower() == other.lower() if fold else one == other


def _starts(name: str, prefix: str, fold: bool) -> bool:
    return name.lower().startswith(prefix.lower()) if fold else name.startswith(prefix)


def _fits(entry: str, form: Form, tool: Tool, fold: bool) -> bool:
    """Whether ``entry``, an entry of ``form``, matches ``tool``."""
    if "{server}" in form.spelling and tool.server is None:
        return False
    found = form.pattern(fold, tool.server, tool.name if form.meaning == TOOL else None
                         ).fullmatch(entry)
    if found is None:
        return False
    return form.meaning != PREFIX or _starts(tool.name, found.group("prefix"), fold)


def matches(entry: str, grammar: Grammar, tools: Sequence[Tool]) -> frozenset[str]:
    """The names of ``tools`` that ``entry`` matches: a tool whose name it is (ignoring case
    where the grammar says so), and every tool an entry of a declared form matches."""
    fold = grammar.case_insensitive
    return frozenset(t.name for t in tools if _same(entry, t.name, fold)
                     or any(_fits(entry, form, t, fold) for form in grammar.forms))


def known(entry: str, grammar: Grammar, tools: Sequence[Tool]) -> bool:
    """Whether ``entry`` is a name or a well-formed entry of the grammar over ``tools``
    (docs/rules.md#TF-08 refuses the others): an entry that matches a tool, or an entry of a
    prefix or every-tool form (on a server that exists, where it names one) that happens to
    match none."""
    if matches(entry, grammar, tools):
        return True
    fold = grammar.case_insensitive
    servers = sorted({t.server for t in tools if t.server is not None})
    for form in grammar.forms:
        if form.meaning not in (PREFIX, ALL):
            continue
        if "{server}" not in form.spelling:
            if form.pattern(fold).fullmatch(entry):
                return True
        elif any(form.pattern(fold, server).fullmatch(entry) for server in servers):
            return True
    return False


def expand(value: Mapping[str, object], grammar: Grammar, tools: Sequence[Tool]) -> Restriction:
    """A valid raw restriction ``{allow?, deny?}`` read under ``grammar`` over the tools
    registered now, as the catalogue's restriction of the names it matches (a list given as
    null counts as absent, docs/rules.md#TF-07)."""
    lists: dict[str, frozenset[str] | None] = {}
    for key in ("allow", "deny"):
        entries = value.get(key)
        if entries is None:
            lists[key] = None
            continue
        if not isinstance(entries, (list, tuple)):
            raise ValueError(f"{key} must be a list of entries, got {entries!r}")
        matched: set[str] = set()
        for entry in entries:
            matched |= matches(str(entry), grammar, tools)
        lists[key] = frozenset(matched)
    allow, deny = lists["allow"], lists["deny"]
    if grammar.precedence == ALLOW_WINS and allow is not None:
        deny = None  # the allow list alone decides
    return Restriction(allow, deny)
