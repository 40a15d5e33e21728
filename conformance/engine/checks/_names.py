"""The generated vocabulary of the checks: tool names, drawn from seeded strategies.

A check that always used the same few names would certify a target that is right only for
those names (docs/certify.md#generated-cases). Every name a check gives a tool comes from here:

- :data:`EXAMPLES`: hand-written names that realistic runtimes use and awkward ones (names that
  differ only by case, that are prefixes of each other, non-ASCII, 64 characters long). The
  checks' explicit cases use them, so they run at every seed.
- :func:`tool_name` / :func:`tool_names`: names drawn by Hypothesis from the whole grammar; a
  list of names is built so that its members are often *related* (one is another in another
  case, a prefix of another, another with a suffix: :func:`relatives`), which is where a
  target that matches names loosely goes wrong.
- :func:`strangers`: names outside a given set that look like its members (TF-08's
  misspellings).
- :func:`folded_pairs`: two names a runtime's declared tool-name folding makes one
  (docs/driver-api.md#dialect: TF-01's cases of it).

The tool-name grammar (docs/certify.md#generated-cases): 1 to 64 characters, each a Unicode
letter (categories Lu, Ll, Lo), a decimal digit (Nd), ``_`` or ``-``, in NFC form. It is the
grammar of the OpenAI and Anthropic tool-calling wires (``[A-Za-z0-9_-]{1,64}``) widened to
non-ASCII letters, which a runtime's registry must keep apart byte for byte. The reserved names
of the catalogue (``run_code``, ``structured_output``, the ``subagent`` tool) are never drawn
for an ordinary tool.

Judging "an error names X" soundly: names of this grammar are whole tokens of ``[\\w-]+``, so a
message lists ``read`` only where ``read`` stands alone, not inside ``read_file`` or
``Read`` (:func:`names_token`, used by ``_observed.missing_names``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Iterable
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st

from subagent_tck.spec import RUN_CODE, STRUCTURED_OUTPUT, SUBAGENT_TOOL_NAME

from ...core.dialect import ToolNameFolding

MAX_NAME = 64
#: Names a check never gives an ordinary tool (TF-06, FR-01's structured output, ST).
RESERVED_NAMES = frozenset({RUN_CODE, STRUCTURED_OUTPUT, SUBAGENT_TOOL_NAME})

_GRAMMAR = re.compile(r"[\w-]{1,64}")
_CATEGORIES = frozenset({"Lu", "Ll", "Lo", "Nd"})

#: Realistic names of real runtimes' tools.
REALISTIC = (
    "get_weather", "read_file", "write_file", "search", "web-fetch", "Bash", "Grep",
    "mcp__github__create_issue", "mcp__github__create_issue_comment", "str_replace_editor",
)
#: Awkward names: case twins, prefixes of each other, non-ASCII, a 64-character name.
AWKWARD = (
    "read", "Read", "READ", "read_file_v2", "r", "café", "cafe", "検索", "données-lire",
    "x" * MAX_NAME,
)
EXAMPLES = REALISTIC + AWKWARD


def is_tool_name(name: object) -> bool:
    """Whether ``name`` is in the kit's tool-name grammar and not reserved."""
    return (
        isinstance(name, str)
        and _GRAMMAR.fullmatch(name) is not None
        and all(c in "_-" or unicodedata.category(c) in _CATEGORIES for c in name)
        and unicodedata.normalize("NFC", name) == name
        and name not in RESERVED_NAMES
    )


def names_token(name: str) -> str:
    """A regular expression matching ``name`` as a whole token of a message."""
    return rf"(?<![\w-]){re.escape(name)}(?![\w-])"


_CHARS = st.characters(categories=("Lu", "Ll", "Lo", "Nd"))
_LOWER = st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789")
_ASCII = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
#: A word: mostly lower-case ASCII (as most real tool names are), sometimes mixed case with
#: ``_``/``-``, sometimes non-ASCII letters.
_WORD = st.one_of(st.text(_LOWER, min_size=1, max_size=10), st.text(_LOWER, min_size=1,
                  max_size=10), st.text(_ASCII, min_size=1, max_size=10),
                  st.text(_CHARS, min_size=1, max_size=6))
_LONG = st.text(st.one_of(_LOWER, _ASCII, _CHARS), min_size=MAX_NAME - 8, max_size=MAX_NAME)


def _fit(name: str) -> str:
    return name[:MAX_NAME]


_COMPOUND = st.one_of(
    st.lists(_WORD, min_size=2, max_size=4).map("_".join),
    st.tuples(_WORD, _WORD).map(lambda t: f"mcp__{t[0]}__{t[1]}"),
)
#: Built once: a strategy built afresh for every name cost more than drawing from it.
_TOOL_NAME = st.one_of(st.sampled_from(EXAMPLES), _WORD, _COMPOUND, _LONG).map(_fit).filter(
    is_tool_name)


def tool_name() -> st.SearchStrategy[str]:
    """One tool name: a hand-written example, a generated word, a snake_case or MCP-style
    compound, or a long name."""
    return _TOOL_NAME


_SUFFIXES = ("_v2", "s", "-2", "_file", "é", "_", "X")


@functools.lru_cache(maxsize=4096)
def relatives(name: str) -> tuple[str, ...]:
    """Names that look like ``name``: another case, a prefix, an extension (every one in the
    grammar). Cached: a drawn name's relatives are asked for again as its list grows."""
    options = [name.swapcase(), name.upper(), name.lower(), name.capitalize(),
               *(_fit(name + s) for s in _SUFFIXES), *(name[:k] for k in range(1, len(name)))]
    return tuple(o for o in dict.fromkeys(options) if o != name and is_tool_name(o))


def _index(draw: Any, size: int) -> int:
    index: int = draw(st.integers(0, size - 1))
    return index


@st.composite
def tool_names(draw: Any, min_size: int = 1, max_size: int = 6,
               avoid: Collection[str] = ()) -> list[str]:
    """Distinct tool names, not in ``avoid``, often related to each other (see
    :func:`relatives`)."""
    size = draw(st.integers(min_size, max_size))
    out: list[str] = []
    for _ in range(3 * size + 4):
        if len(out) >= size:
            break
        if out and draw(st.booleans()):
            # indices, not a strategy per list: building strategies cost more than drawing
            kept = relatives(out[_index(draw, len(out))])
            name = kept[_index(draw, len(kept))] if kept else draw(tool_name())
        else:
            name = draw(tool_name())
        if name not in out and name not in avoid:
            out.append(name)
    counter = 0
    while len(out) < min_size:  # rare: every draw collided; fill with fresh names
        counter += 1
        name = f"tool_{counter}"
        if name not in out and name not in avoid:
            out.append(name)
    return out


def strangers(names: Iterable[str], avoid: Collection[str] = ()) -> list[str]:
    """Names that look like members of ``names`` (another case, a prefix, an extension) but
    are none of them nor in ``avoid``: the misspellings TF-08 must refuse."""
    known = set(names) | set(avoid)
    out: list[str] = []
    for name in names:
        for other in (name.swapcase(), _fit(name + name[-1]), name[:-1], _fit(name + "_")):
            if other not in known and other not in out and is_tool_name(other):
                out.append(other)
    return out


@st.composite
def folded_pairs(draw: Any, folding: ToolNameFolding) -> tuple[str, str]:
    """Two distinct names of the grammar that ``folding`` spells alike: a drawn name with a
    character outside the folding's kept set, and that name as the runtime spells it (or,
    when that spelling is outside the grammar, the name with another such character)."""
    outside = _CHARS.filter(lambda c: folding.fold(c) != c)
    for _ in range(8):
        head, tail = draw(_WORD), draw(st.one_of(st.just(""), _WORD))
        name = _fit(head + draw(outside) + tail)
        twin = folding.fold(name)
        if twin == name or not is_tool_name(twin):
            twin = _fit(head + draw(outside) + tail)
        if name != twin and is_tool_name(name) and is_tool_name(twin) \
                and folding.fold(name) == folding.fold(twin):
            return name, twin
    reject()
    raise AssertionError("unreachable")  # pragma: no cover - reject() raises
