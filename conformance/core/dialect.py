"""What a target declares about its runtime's own terms (docs/driver-api.md#dialect).

A runtime people delegate with has its own ways of putting a restriction on an agent, its own
spellings of a filter entry and its own text around an agent's system prompt. A target declares
them in its ``info`` so that the kit builds its cases through them and judges them by their
documented meaning, instead of finding a rule "not applicable" because the kit's preferred
operation is missing:

- :class:`RestrictionChannel`: an entry point through which a restriction is put on a scope,
  with that scope's view observed (a live restriction, a child's preset, the root agent's
  definition, deployment-wide permission rules). A target that declares none has the live one
  (``install-restriction``), as every target of protocol 1.2 had.
- :class:`FilterGrammar`: the entry spellings a channel's runtime documents besides a tool's
  own name (a server-level entry ``mcp__{server}``, a wildcard ``mcp__{server}__*``), whether
  names match ignoring case, and which list wins. A grammar whose case rule or precedence
  differs from the catalogue's is a *declared variant*: the certificate's dialect section says
  so, and the kit judges the runtime by it (docs/rules.md#TF-01).
- :class:`ToolNameFolding`: how a runtime spells the tool names it is given, when two names the
  catalogue keeps apart can become one (characters outside a set replaced): only the checks of
  docs/rules.md#TF-01 build cases with such a pair; every other check draws around them, so that
  a seed that happens to draw one does not fail another rule for TF-01's cause.
- :class:`PromptFrame`: the text a runtime puts before and after an agent's composed system
  text. It says only what may *surround* the composed text, so a runtime that drops, swaps or
  leaves raw the composed persona still fails the persona rules (docs/rules.md#PE-01).

These models are the wire's (camelCase, ``extra`` forbidden): the HTTP driver API's OpenAPI
document is generated from them with :class:`~.protocol.TargetInfo`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from subagent_tck.spec import Edition
from subagent_tck.spec.grammar import CATALOGUE, Form, Grammar


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChannelKind(str, Enum):
    """Where a restriction is put, and whose view shows it."""

    #: ``install-restriction`` on a running agent's scope (and ``dispose-restriction``); the
    #: scope's view is read with ``view``. Every restriction rule can be built through it.
    LIVE = "live"
    #: a child's composition: its preset's ``toolFilter`` (edition preset-composition) or its
    #: start request's (request-controls), through a provider that advertises ``toolFilter``;
    #: the view is what the child's first model request offers.
    CHILD = "child"
    #: the root agent started from a preset (``DeploymentConfig.rootPreset``: a main agent run
    #: from an agent definition with its own restriction); the view is what the root's
    #: requests offer in a turn.
    ROOT = "root"
    #: deployment-wide restrictions every agent's scope is under (``DeploymentConfig.
    #: permissions``: a runtime's permission rules); the view is what the root's requests offer
    #: in a turn.
    PERMISSION = "permission"


ListKind = Literal["allow", "deny"]
LISTS: tuple[ListKind, ...] = ("allow", "deny")


class EntryMeaning(str, Enum):
    """What an entry of a declared form matches, by the slots its spelling fills."""

    #: one tool: ``{tool}`` (on ``{server}`` where the spelling has that slot)
    TOOL = "tool"
    #: every global tool of the server ``{server}``
    SERVER = "server"
    #: every global tool
    ALL = "all"
    #: every global tool whose name starts with ``{prefix}`` (on ``{server}`` where the
    #: spelling has that slot)
    PREFIX = "prefix"


#: The slots a spelling may fill, and the ones each meaning needs.
SLOTS = ("{server}", "{tool}", "{prefix}")
_NEEDS: dict[EntryMeaning, tuple[str, ...]] = {
    EntryMeaning.TOOL: ("{tool}",), EntryMeaning.SERVER: ("{server}",),
    EntryMeaning.ALL: (), EntryMeaning.PREFIX: ("{prefix}",),
}
_SLOT = re.compile(r"\{[a-z*]*\}")


class EntryForm(_Model):
    """One entry spelling the runtime documents besides a tool's own name: ``spelling`` is the
    runtime's text with slots the kit fills (``{server}``: a server name the kit gave its tools,
    ``ToolSpec.server``; ``{tool}``: a tool's name; ``{prefix}``: the start of a tool's name),
    ``meaning`` what such an entry matches. Claude Code's server-level entries are
    ``{"spelling": "mcp__{server}", "meaning": "server"}`` and ``{"spelling":
    "mcp__{server}__*", "meaning": "server"}``; ``mcp__*`` is ``"all"``."""

    spelling: str = Field(min_length=1)
    meaning: EntryMeaning

    @model_validator(mode="after")
    def _slots_fit(self) -> EntryForm:
        used = _SLOT.findall(self.spelling)
        unknown = sorted({s for s in used if s not in SLOTS})
        if unknown:
            raise ValueError(f"spelling {self.spelling!r} has unknown slot(s) {unknown}: use "
                             f"{', '.join(SLOTS)}")
        missing = [s for s in _NEEDS[self.meaning] if s not in used]
        if missing:
            raise ValueError(f"an entry of meaning {self.meaning.value!r} needs the slot(s) "
                             f"{missing} in its spelling {self.spelling!r}")
        if self.meaning is not EntryMeaning.TOOL and "{tool}" in used:
            raise ValueError(f"only an entry of meaning 'tool' names a {{tool}}: "
                             f"{self.spelling!r}")
        if self.meaning is EntryMeaning.ALL and used:
            raise ValueError(f"an entry of meaning 'all' has no slot: {self.spelling!r}")
        if len(used) != len(set(used)):
            raise ValueError(f"spelling {self.spelling!r} fills a slot twice")
        return self


class FilterGrammar(_Model):
    """The filter spellings a channel's runtime documents. A plain entry is always a tool's own
    name (the kit's name, which an adapter spells as its runtime does); ``forms`` add the other
    spellings. ``caseInsensitive`` and ``precedence`` other than the catalogue's are declared
    variants (docs/rules.md#TF-01 compares names exactly and takes allow minus deny)."""

    forms: list[EntryForm] = Field(default_factory=list)
    #: entries match tool names ignoring case (a variant of docs/rules.md#TF-01)
    caseInsensitive: bool = False
    #: ``deny-wins``: the catalogue's allow minus deny; ``allow-wins`` (a variant): with both
    #: lists a name the allow list matches is admitted whatever the deny list says, so the deny
    #: list decides only without an allow list
    precedence: Literal["deny-wins", "allow-wins"] = "deny-wins"


class RestrictionChannel(_Model):
    """An entry point through which the target puts a restriction on a scope
    (:class:`ChannelKind`). ``lists`` are the lists it can carry (a runtime whose permission
    rules only hide tools carries ``deny`` alone); ``grammar`` the spellings its entries may
    take (none: tool names only); ``via`` the runtime's own words for it, shown in the
    certificate ("agent definition tools/disallowedTools")."""

    kind: ChannelKind
    lists: list[ListKind] = Field(default_factory=lambda: list(LISTS), min_length=1)
    grammar: FilterGrammar | None = None
    via: str = ""


_CLASS_BODY = re.compile(r"(?:\\.|[^\\\[\]])+")


class ToolNameFolding(_Model):
    """How the runtime spells a tool name it is given: in Unicode ``normalization`` form first
    (Claude Code takes NFKC), then each character outside ``keeps`` (the body of a
    regular-expression character class, ``A-Za-z0-9_-``) written as ``becomes``, once per
    UTF-16 unit when ``utf16`` (a JavaScript pattern without the ``u`` flag, as opencode and
    Claude Code clean an MCP tool's name). Two names that fold alike are one tool
    to the runtime: a departure from docs/rules.md#TF-01, which keeps every two names apart and
    still judges such pairs; ``via`` says where the runtime does it."""

    keeps: str = Field(min_length=1)
    becomes: str = "_"
    utf16: bool = False
    normalization: Literal["NFC", "NFKC"] | None = None
    via: str = ""

    @model_validator(mode="after")
    def _one_class(self) -> ToolNameFolding:
        if self.keeps.startswith("^") or not _CLASS_BODY.fullmatch(self.keeps):
            raise ValueError(f"keeps {self.keeps!r}: give the inside of one character class, "
                             "such as A-Za-z0-9_- (brackets and backslashes escaped, no ^)")
        try:
            re.compile(f"[^{self.keeps}]")
        except re.error as exc:
            raise ValueError(f"keeps {self.keeps!r} is not a character class: {exc}") from exc
        return self

    def fold(self, name: str) -> str:
        """``name`` as the runtime spells it."""
        def becomes(found: re.Match[str]) -> str:
            return self.becomes * (2 if self.utf16 and ord(found.group()) > 0xFFFF else 1)
        if self.normalization is not None:
            name = unicodedata.normalize(self.normalization, name)
        return re.sub(f"[^{self.keeps}]", becomes, name)

    def apart(self, names: Iterable[str]) -> bool:
        """Whether no two distinct ``names`` are spelled alike (one name twice is one)."""
        seen: dict[str, str] = {}
        return all(seen.setdefault(self.fold(n), n) == n for n in names)

    def words(self) -> str:
        """The fact in words, for the reports (``via`` is the target's text: each report
        escapes it)."""
        unit = " per UTF-16 unit" if self.utf16 else ""
        form = f"in {self.normalization} form, " if self.normalization else ""
        text = (f"tool names: {form}each character outside [{self.keeps}] becomes "
                f"{self.becomes!r}{unit}; names that fold alike are judged by TF-01 alone")
        return f"{text} ({self.via})" if self.via else text


#: The channels of a target that declares none: the live restriction of protocol 1.2.
DEFAULT_CHANNELS = (RestrictionChannel(kind=ChannelKind.LIVE),)


class FrameText(_Model):
    """The runtime's own text before and after a composed system text. Each is literal text in
    which ``{*}`` stands for a run of characters within one line (a version, a path, a date);
    nothing else is a pattern. The composed text stands between them exactly."""

    before: str = ""
    after: str = ""


_WILD = "{*}"


def _pattern(text: str) -> str:
    return r"[^\n]*".join(re.escape(part) for part in text.split(_WILD))


@dataclass(frozen=True)
class Unframed:
    """A system text split by a frame: the text inside it, and the frame's own text."""

    composed: str
    frame: str


def unframe(frame: FrameText, system: str) -> Unframed | None:
    """``system`` as ``frame.before`` + composed + ``frame.after``, or None when it is not
    framed so (``{*}`` matches a run of characters within one line, the rest literally)."""
    found = re.fullmatch(f"(?P<before>{_pattern(frame.before)})(?P<composed>[\\s\\S]*)"
                         f"(?P<after>{_pattern(frame.after)})", system)
    if found is None:
        return None
    return Unframed(found.group("composed"), found.group("before") + found.group("after"))


class PromptFrame(_Model):
    """How the runtime frames the system text the kit composes: ``child`` around a child's,
    ``root`` around a top-level agent's (none: that agent's system text is the composed text
    alone)."""

    child: FrameText | None = None
    root: FrameText | None = None


_WORDS = {
    ChannelKind.LIVE: "a live restriction (install-restriction)",
    ChannelKind.ROOT: "the root's own definition (rootPreset)",
    ChannelKind.PERMISSION: "permission rules (permissions)",
}


def channel_words(channel: RestrictionChannel, edition: Edition) -> str:
    """How reports and check notes name a channel: the kit's words, then the runtime's
    (``via``). A child's filter comes from its preset or its start request by edition."""
    if channel.kind is ChannelKind.CHILD:
        words = ("a child's preset (toolFilter)" if edition is Edition.PRESET_COMPOSITION
                 else "a child's start request (toolFilter)")
    else:
        words = _WORDS[channel.kind]
    return f"{words}: {channel.via}" if channel.via else words


def channels_of(declared: list[RestrictionChannel] | None) -> tuple[RestrictionChannel, ...]:
    """The channels a target offers: what it declared, else the live one."""
    return tuple(declared) if declared else DEFAULT_CHANNELS


def oracle_grammar(grammar: FilterGrammar | None) -> Grammar:
    """A declared grammar as the oracle reads it (``spec/grammar.py``); none: the catalogue's."""
    if grammar is None:
        return CATALOGUE
    return Grammar(tuple(Form(f.spelling, f.meaning.value) for f in grammar.forms),
                   grammar.caseInsensitive, grammar.precedence)


# --- the certificate's dialect section -------------------------------------------------------


class DialectChannel(BaseModel):
    """One channel of the run as the certificate reports it."""

    kind: ChannelKind
    words: str = Field(description="how the reports name it: the kit's words, then the "
                       "runtime's (via)")
    declared: bool = Field(description="declared by the target; false: the live channel a "
                           "target that declares none has")
    lists: list[ListKind]
    grammar: FilterGrammar | None = Field(None, description="the entry spellings it takes "
                                          "besides tool names; null: tool names only")
    variants: list[str] = Field(default_factory=list, description="how its grammar departs "
                                "from the catalogue's, in words (docs/rules.md#TF-01): a "
                                "declared variant the kit judged by, not a failure")
    checks: list[str] = Field(default_factory=list, description="the check runs that built "
                              "cases through it")


class Dialect(BaseModel):
    """What the target declared of its runtime's own terms and how the run used it
    (docs/driver-api.md#dialect); present in every certificate."""

    channels: list[DialectChannel]
    frame: PromptFrame | None = Field(None, description="the runtime's text around the "
                                      "composed system text; null: none declared")
    toolNameFolding: ToolNameFolding | None = Field(
        None, description="how the runtime folds tool names together; null: it keeps every "
        "two apart, as docs/rules.md#TF-01 asks")

    @property
    def variants(self) -> list[str]:
        """Every declared variant, each with the channel it belongs to."""
        return [f"{c.words}: {v}" for c in self.channels for v in c.variants]

    def lines(self) -> list[str]:
        """The section as plain lines (each report escapes them: ``via`` and the frame are the
        target's text)."""
        out = []
        for c in self.channels:
            used = ", ".join(c.checks) if c.checks else "no check built a case through it"
            spell = ", ".join(f.spelling for f in c.grammar.forms) if c.grammar else ""
            origin = "declared" if c.declared else "the default"
            out.append(f"restriction channel {c.words} ({origin}; lists {'/'.join(c.lists)}"
                       + (f"; spellings {spell}" if spell else "") + f"): {used}")
            out += [f"  variant: {v}" for v in c.variants]
        if self.toolNameFolding is not None:
            out.append(self.toolNameFolding.words())
        if self.frame is None:
            out.append("prompt frame: none declared")
        for who in ("child", "root"):
            text = getattr(self.frame, who) if self.frame is not None else None
            if text is not None:
                out.append(f"prompt frame of a {who}: before {text.before!r}, after "
                           f"{text.after!r}")
        return out


def dialect_of(declared: list[RestrictionChannel] | None, frame: PromptFrame | None,
               edition: Edition, entry_points: dict[str, list[str]],
               folding: ToolNameFolding | None = None) -> Dialect:
    """The dialect section: the channels (declared, else the default), what each check built
    through each (``entry_points``: check run -> the words of the channels it used)."""
    channels = []
    for channel in channels_of(declared):
        words = channel_words(channel, edition)
        channels.append(DialectChannel(
            kind=channel.kind, words=words, declared=bool(declared), lists=list(channel.lists),
            grammar=channel.grammar, variants=list(oracle_grammar(channel.grammar).variants),
            checks=[run for run, used in entry_points.items() if words in used]))
    return Dialect(channels=channels, frame=frame, toolNameFolding=folding)
