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

    def pattern(self, fold: bool) -> re.Pattern[str]:
        """The entries of this form, each slot a named group (a prefix may be empty)."""
        parts = re.split(r"(\{server\}|\{tool\}|\{prefix\})", self.spelling)
        out = "".join(
            f"(?P<{part[1:-1]}>.{'*' if part == '{prefix}' else '+'}?)" if index % 2
            else re.escape(part) for index, part in enumerate(parts))
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


def matches(entry: str, grammar: Grammar, tools: Sequence[Tool]) -> frozenset[str]:
    """The names of ``tools`` that ``entry`` matches: a tool whose name it is (ignoring case
    where the grammar says so), and every tool an entry of a declared form matches."""
    fold = grammar.case_insensitive
    out = {t.name for t in tools if _same(entry, t.name, fold)}
    for form in grammar.forms:
        found = form.pattern(fold).fullmatch(entry)
        if found is None:
            continue
        slots = found.groupdict()
        for tool in tools:
            if "server" in slots and (tool.server is None
                                      or not _same(slots["server"], tool.server, fold)):
                continue
            if form.meaning == TOOL and not _same(slots["tool"], tool.name, fold):
                continue
            if form.meaning == PREFIX and not _starts(tool.name, slots["prefix"], fold):
                continue
            out.add(tool.name)
    return frozenset(out)


def known(entry: str, grammar: Grammar, tools: Sequence[Tool]) -> bool:
    """Whether ``entry`` is a name or a well-formed entry of the grammar over ``tools``
    (docs/rules.md#TF-08 refuses the others): a tool's name, or an entry of a declared form
    whose server and tool slots name ones that exist (a prefix may match nothing)."""
    if matches(entry, grammar, tools):
        return True
    fold = grammar.case_insensitive
    for form in grammar.forms:
        found = form.pattern(fold).fullmatch(entry)
        if found is None:
            continue
        slots = found.groupdict()
        servers = {t.server for t in tools if t.server is not None}
        if form.meaning in (PREFIX, ALL) and (
                "server" not in slots or any(_same(slots["server"], s, fold) for s in servers)):
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
