"""What the fuzzer draws (DE-05..DE-08, TF-01..TF-08, PE-05, EN-02, EN-03), as pools and decoders.

The depth domain is drawn as raw JSON text, because that is where targets differ: ``-0``,
``1.0``, ``1e2``, ``9007199254740993`` (which a JavaScript reader takes as 2^53), ``1e-400``
(which underflows to 0), the non-JSON tokens ``NaN`` / ``Infinity``, huge and tiny magnitudes,
strings, booleans, null, arrays and objects. A :class:`DepthText` keeps the text (for readable
replays) and gives the value an in-process target receives: :func:`subagent_tck.spec.
read_json_number` of the text, or the Python float ``nan`` / ``inf`` for the non-JSON tokens (over
a JSON wire those make the request malformed; either way it must be refused, nothing changed).

Speed: Hypothesis spends most of a step drawing, so each step of the machine draws *one* byte
string, and a :class:`Code` reads every choice of the step from it, one byte per choice (so
that shrinking a byte towards zero simplifies exactly one choice). The same pools back the
Hypothesis strategies below (:func:`depth_texts`, :func:`restriction_values`), used by property
tests.

Tool names come from a small per-deployment alphabet so that collisions, re-registration, case
variants (``read`` / ``Read``) and the reserved ``run_code`` occur often: the core the presets
mention (the deployment's :class:`~.lexicon.Lexicon`, itself drawn), and names generated from the
deployment's code (:func:`pick_vocabulary`: realistic, MCP-style, case variants and prefixes of
names in use, non-ASCII, long), so that a target right only for the kit's own names fails under
some seed; a restriction's names are *references* resolved against the globals registered at
that moment, so most are valid.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TypeVar

from hypothesis import strategies as st

from subagent_tck.conformance.engine.checks._names import is_tool_name
from subagent_tck.spec import (
    MAX_SAFE_INTEGER,
    RUN_CODE,
    STRUCTURED_OUTPUT,
    SUBAGENT_TOOL_NAME,
    read_json_number,
)

from .code import Code, codes
from .lexicon import CLASSIC

T = TypeVar("T")


# --- depth values as JSON text -----------------------------------------------------------

#: The non-JSON number tokens and the Python value an in-process target gets for each.
NON_JSON_TOKENS: dict[str, float] = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}

#: Hand-picked edges of the domain (docs/rules.md, DE "Decision (domain)").
EDGE_TEXTS: tuple[str, ...] = (
    "0", "1", "2", "3", "-1", "-0", "-0.0", "0.0", "1.0", "2.0", "1e0", "1e2", "1E1", "1e+1",
    "10e-1", "0.5", "1.5", "2.5e0", "1e-400", "-1e-400", "1e400", "-1e400", "5e-324",
    "9007199254740990", "9007199254740991", "9007199254740992", "9007199254740993",
    "9007199254740994", "9007199254740991.0", "9.007199254740991e15", "9.007199254740992e15",
    "1e16", "1e308", "-9007199254740991", "NaN", "Infinity", "-Infinity", '"1"', '""', "true",
    "false", "null", "[]", "[1]", "{}", '{"depth": 1}',
)
_SMALL_TEXTS = ("0", "1", "2", "3", "4")
#: Every depth text the machine draws from: the edges, families around them, and small valid
#: values weighted up (so that children get started).
DEPTH_POOL: tuple[str, ...] = (
    *(_SMALL_TEXTS * 4),
    *EDGE_TEXTS,
    *(str(MAX_SAFE_INTEGER + k) for k in range(-3, 4)),
    *(f"{n}.0" for n in range(5)), "3e0", "4E0", "30e-1", "0.1e1", "2000e-3",
    "-2", "-5", "-3.0", "0.25", "2.75", "3.0000001", "1e-7", "-1e-7", "1e-320",
    "18014398509481984", "1e20", "123456789012345678901234567890", "1.7976931348623157e308",
    '"0"', '"NaN"', "[0]", '{"value": 2}',
)


@dataclass(frozen=True)
class DepthText:
    """One depth as the raw JSON text a wire client would send."""

    text: str

    @property
    def value(self) -> object:
        """What an in-process target receives for this text."""
        return depth_value(self.text)

    def __repr__(self) -> str:
        return f"json({self.text})"


def depth_value(text: str) -> object:
    """The value a JavaScript-style reader gives for ``text``; ``nan``/``inf`` for the tokens."""
    token = text.strip()
    if token in NON_JSON_TOKENS:
        return NON_JSON_TOKENS[token]
    return read_json_number(text)


def is_well_formed(text: str) -> bool:
    """False for text that makes a JSON request malformed (the non-JSON tokens)."""
    try:
        read_json_number(text)
    except ValueError:
        return False
    return True


def pick_depth(code: Code) -> DepthText:
    return DepthText(code.choose(DEPTH_POOL))


def pick_header(code: Code) -> DepthText:
    """A durable ``delegationDepth``: half the time small and valid, else any pool text."""
    return DepthText(code.choose(_SMALL_TEXTS)) if code.take(2) == 0 else pick_depth(code)


def pick_optional_depth(code: Code, absent_in: int = 3) -> DepthText | None:
    """Absent one time in ``absent_in``, else a pool text."""
    return None if code.take(absent_in) == 0 else pick_depth(code)


def depth_texts() -> st.SearchStrategy[DepthText]:
    """Any depth: the pool, plus generated exponent forms, integers near 2^53, huge integers
    and fractions (for property tests of the domain)."""
    return st.one_of(
        st.sampled_from(DEPTH_POOL),
        st.builds(lambda m, e: f"{m}e{e}", st.integers(-3, 30), st.integers(-2, 3)),
        st.integers(-3, 3).map(lambda k: str(MAX_SAFE_INTEGER + k)),
        st.integers(2**53, 2**70).map(str),
        st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(repr),
    ).map(DepthText)


# --- tool names and restrictions ---------------------------------------------------------

#: Syllables of generated tool names (realistic pieces; every deployment composes its own).
_SYLLABLES: tuple[str, ...] = (
    "get", "weather", "list", "files", "create", "issue", "search", "web", "read", "write",
    "fetch", "url", "run", "query", "db", "send", "mail", "calendar", "event", "lookup",
    "résumé", "données", "検索", "ツール", "ß", "λ", "x", "tool", "v2", "admin",
)


def pick_name(code: Code, base: Sequence[str]) -> str:
    """One generated tool name, drawn from the deployment's code: snake case of two or three
    syllables, an MCP-style ``mcp__server__tool``, a case variant or a prefix or extension of a
    ``base`` name (the collisions a case-folding or prefix-matching target gets wrong),
    non-ASCII, or long (64 and more characters)."""
    style = code.take(7)
    first = code.choose(_SYLLABLES)
    second = code.choose(_SYLLABLES)
    anchor = code.choose(base) if base else first
    if style == 0:
        return f"{first}_{second}"
    if style == 1:
        return f"mcp__{first}__{second}_{code.choose(_SYLLABLES)}"
    if style == 2:  # a case variant of a name in use
        return anchor.upper() if code.take(2) else anchor[:1].upper() + anchor[1:]
    if style == 3:  # a prefix of a name in use, or that name extended
        return anchor[: max(1, len(anchor) - 1 - code.take(3))] if code.take(2) else (
            f"{anchor}{code.choose(('_', '-', '.', ''))}{second}")
    if style == 4:
        return f"{first}{second}"  # no separator: prefixes of each other with the syllables
    if style == 5:
        return "_".join([first, second] * 8)[: 64 + code.take(8)]
    return f"{first}-{second}" if code.take(2) else f"{first}.{second}"


def pick_vocabulary(code: Code, core: Sequence[str], size: int = 3) -> tuple[str, ...]:
    """The registrable names of one deployment: its ``core`` (the lexicon's
    :attr:`~.lexicon.Lexicon.register_names`, which the presets mention, ``run_code`` last) and
    ``size`` generated names, distinct, never ``run_code``."""
    names = list(core)
    for _ in range(size):
        name = pick_name(code, [n for n in names if n != RUN_CODE])
        if name and name not in names and name != RUN_CODE and name != STRUCTURED_OUTPUT:
            names.insert(len(names) - 1, name)  # run_code stays last
    return tuple(names)


#: Pieces of ``subagent`` tool names: realistic words, non-ASCII letters, digits.
_TOOL_PIECES: tuple[str, ...] = (
    "subagent", "delegate", "task", "agent", "helper", "acp", "fork", "review", "委任", "サブ",
    "δ", "résumé", "ß", "x", "2", "v2",
)


def _fits(name: str, avoid: Collection[str]) -> bool:
    """A name of the tool-name grammar (docs/certify.md#generated-cases; the ``subagent``
    tool's default name included) that is none of ``avoid``."""
    return (name not in avoid
            and (name == SUBAGENT_TOOL_NAME or is_tool_name(name)))


def pick_tool_name(code: Code, base: Sequence[str]) -> str:
    """One ``toolName`` of a ``subagent`` tool, from the whole tool-name grammar: the default
    ``subagent``, pieces joined by ``_``, ``-`` or nothing, a name of ``base`` in another case
    (names that differ only in case must coexist, docs/rules.md#ST-04) or extended, a single
    character, or a name of 64 characters."""
    style = code.take(7)
    first, second = code.choose(_TOOL_PIECES), code.choose(_TOOL_PIECES)
    anchor = code.choose(base) if base else first
    if style == 0:
        return SUBAGENT_TOOL_NAME
    if style in (1, 2):  # another case of a name in use (twice as often: the ST-04 partition)
        return code.choose((anchor.upper(), anchor.capitalize(), anchor.swapcase(),
                            anchor.lower()))
    if style == 3:
        return f"{anchor}{code.choose(('_', '-', ''))}{second}"
    if style == 4:
        return code.choose(("x", "Y", "7", "_", "-", "ß", "委"))
    if style == 5:
        return "_".join([first, second] * 16)[: 64 - code.take(3)]
    return f"{first}{code.choose(('_', '-', ''))}{second}"


def pick_tool_names(code: Code, avoid: Collection[str], size: int = 3) -> tuple[str, ...]:
    """The ``toolName`` s one deployment loads ``subagent`` tools under: ``size`` distinct
    names of the grammar (:func:`pick_tool_name`), none of ``avoid`` (the names the deployment
    registers as plain tools), often two that differ only in case."""
    names: list[str] = []
    for _ in range(4 * size):
        if len(names) == size:
            break
        name = pick_tool_name(code, names)
        if _fits(name, avoid) and name not in names:
            names.append(name)
    counter = 0
    while len(names) < size:  # an exhausted code draws the same name again: number them
        counter += 1
        name = f"{SUBAGENT_TOOL_NAME}_{counter}"
        if name not in avoid and name not in names:
            names.append(name)
    return tuple(names)


#: Restrictions of the wrong shape or with empty / null lists (TF-03, TF-07).
ODD_RESTRICTIONS: tuple[object, ...] = (
    {}, {"allow": None}, {"deny": None}, {"allow": None, "deny": None}, {"allow": []},
    {"deny": []}, {"allow": [], "deny": []}, {"allow": "read"}, {"deny": [1]}, "read", ["read"],
    None,
)


def _name(ref: int, names: Sequence[str], extra: Sequence[str]) -> str:
    if names and ref < 12:
        return names[ref % len(names)]
    return extra[ref % len(extra)]


def _names(code: Code, names: Sequence[str], null: bool, extra: Sequence[str]) -> list[str] | None:
    size = code.take(5 if null else 4)
    if size == 4:
        return None
    return [_name(code.take(16), names, extra) for _ in range(size)]


def pick_restriction(code: Code, names: Sequence[str],
                     extra: Sequence[str] = CLASSIC.extra_names) -> object:
    """A raw ``{allow?, deny?}`` value over the current global ``names``: mostly valid, some
    naming ``extra`` names (unknown, local-only or reserved: the lexicon's
    :attr:`~.lexicon.Lexicon.extra_names`), some empty, null or of the wrong shape."""
    kind = code.take(8)
    if kind == 7:
        return code.choose(ODD_RESTRICTIONS)
    if kind >= 5:
        return {"allow": _names(code, names, True, extra),
                "deny": _names(code, names, True, extra)}
    return {"allow" if kind < 3 else "deny": _names(code, names, False, extra)}


def restriction_values(names: Sequence[str] = ("read", "write")) -> st.SearchStrategy[object]:
    """Raw restrictions over ``names`` (for property tests)."""
    return codes(12).map(lambda data: pick_restriction(Code(data), list(names)))


# --- start controls ----------------------------------------------------------------------


class _Omit:
    """Marks a start control left out of the request (unlike an explicit ``null``)."""

    def __repr__(self) -> str:
        return "OMIT"


OMIT: object = _Omit()

#: Output schemas: one valid, two not (FR-03).
OUTPUT_SCHEMAS: tuple[object, ...] = (
    {"type": "object", "properties": {"verdict": {"type": "string"}}}, {"type": "string"},
    "object",
)


def pick_persona(code: Code, personas: Sequence[str]) -> object:
    """:data:`OMIT` (half the time), ``null``, or one of ``personas`` (the lexicon's
    :meth:`~.lexicon.Lexicon.request_personas`: plain, empty, templated, broken)."""
    return code.choose((OMIT, OMIT, OMIT, OMIT, OMIT, OMIT, None, *personas))


def agent_options(model: str) -> tuple[object, ...]:
    """A load's ``agentOptions``: none, a model name (``model``), an explicit null model, and
    malformed ones (a number, an unknown key, not an object)."""
    return ({}, {"model": model}, {"model": model}, {"model": None}, None, {"model": 3},
            {"temperature": 0}, model)


def pick_output_schema(code: Code) -> object:
    """:data:`OMIT` (mostly), ``null``, or a schema."""
    return code.choose((OMIT, OMIT, OMIT, OMIT, OMIT, None, *OUTPUT_SCHEMAS))
