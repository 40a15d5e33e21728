"""Hypothesis strategies for the fuzzer (DE-05..DE-08, TF-01..TF-08, PE-05, EN-02, EN-03).

The depth domain is drawn as raw JSON text, because that is where targets differ: ``-0``,
``1.0``, ``1e2``, ``9007199254740993`` (which a JavaScript reader takes as 2^53), ``1e-400``
(which underflows to 0), the non-JSON tokens ``NaN`` / ``Infinity``, strings, booleans, null,
arrays and objects. A :class:`DepthText` keeps the text (for readable replays) and gives the value
an in-process target receives: :func:`subagent_tck.spec.read_json_number` of the text, or the
Python float ``nan`` / ``inf`` for the non-JSON tokens (over a JSON wire those make the request
malformed; either way the value must be rejected and nothing may change).

Tool names come from a small alphabet so that collisions, re-registration, case variants
(``read`` / ``Read``) and the reserved ``run_code`` occur often.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import strategies as st
from subagent_tck.spec import MAX_SAFE_INTEGER, RUN_CODE, STRUCTURED_OUTPUT, read_json_number

# --- depth values as JSON text -----------------------------------------------------------

#: The non-JSON number tokens and the Python value an in-process target gets for each.
NON_JSON_TOKENS: dict[str, float] = {
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
}

#: Hand-picked edges of the domain (RULES.md, DE "Decision (domain)").
EDGE_TEXTS: tuple[str, ...] = (
    "0", "1", "2", "3", "-1", "-0", "-0.0", "0.0", "1.0", "2.0", "1e0", "1e2", "1E1", "1e+1",
    "10e-1", "0.5", "1.5", "2.5e0", "1e-400", "-1e-400", "1e400", "-1e400", "5e-324",
    "9007199254740990", "9007199254740991", "9007199254740992", "9007199254740993",
    "9007199254740994", "9007199254740991.0", "9.007199254740991e15", "9.007199254740992e15",
    "1e16", "1e308", "-9007199254740991", "NaN", "Infinity", "-Infinity", '"1"', '""', "true",
    "false", "null", "[]", "[1]", "{}", '{"depth": 1}',
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


def _exponent_text(mantissa: int, exponent: int) -> str:
    return f"{mantissa}e{exponent}"


_SMALL = st.integers(min_value=0, max_value=4).map(str)
_NEGATIVE = st.integers(min_value=-5, max_value=-1).map(str)
_FLOATISH = st.integers(min_value=0, max_value=4).map(lambda n: f"{n}.0")
_EXPONENT = st.builds(
    _exponent_text, st.integers(min_value=-3, max_value=30), st.integers(min_value=-2, max_value=3)
)
_NEAR_SAFE = st.integers(min_value=-3, max_value=3).map(lambda k: str(MAX_SAFE_INTEGER + k))
_HUGE = st.integers(min_value=2**53, max_value=2**70).map(str)
_FRACTION = st.floats(
    min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False
).map(repr)


def depth_texts() -> st.SearchStrategy[DepthText]:
    """Any depth: mostly small valid values (so children get started), plus every edge."""
    return st.one_of(
        _SMALL,
        _SMALL,
        st.sampled_from(EDGE_TEXTS),
        _FLOATISH,
        _EXPONENT,
        _NEAR_SAFE,
        _NEGATIVE,
        _HUGE,
        _FRACTION,
    ).map(DepthText)


def max_depths() -> st.SearchStrategy[DepthText | None]:
    """A start's ``maxDepth``: absent (``None``) or a depth text."""
    return st.one_of(st.none(), depth_texts())


def header_depths() -> st.SearchStrategy[DepthText]:
    """A durable ``delegationDepth``: usually small and valid, sometimes any edge."""
    return st.one_of(_SMALL.map(DepthText), depth_texts())


def runtime_depths() -> st.SearchStrategy[DepthText | None]:
    """A runtime ``subagentDepth``: absent (``None``) or a depth text."""
    return st.one_of(st.none(), st.none(), depth_texts())


# --- tool names and restrictions ---------------------------------------------------------

#: Names the fuzzer registers (globally or in a scope): ``Read`` is a case variant of ``read``.
REGISTER_NAMES: tuple[str, ...] = ("read", "write", "search", "Read", "web", RUN_CODE)
#: Names a restriction may list: registrable ones plus never-registered and scope-only ones.
FILTER_NAMES: tuple[str, ...] = (*REGISTER_NAMES, "ghost", STRUCTURED_OUTPUT)
#: Names the fuzzer looks up or calls (forged names included).
CALL_NAMES: tuple[str, ...] = FILTER_NAMES

_LIST = st.lists(st.sampled_from(FILTER_NAMES), max_size=3)
_LIST_OR_NULL = st.one_of(st.none(), _LIST)
_ODD_RESTRICTIONS: tuple[object, ...] = (
    {},
    {"allow": None},
    {"deny": None},
    {"allow": None, "deny": None},
    {"allow": []},
    {"deny": []},
    {"allow": [], "deny": []},
    {"allow": "read"},
    {"deny": [1]},
    "read",
    ["read"],
    None,
)


#: Names a restriction may list besides the registered globals (TF-08's offenders).
EXTRA_NAMES: tuple[str, ...] = ("ghost", STRUCTURED_OUTPUT, RUN_CODE, "web", "Read")
_REF = st.integers(min_value=0, max_value=15)
_REFS = st.lists(_REF, max_size=3)
_REFS_OR_NULL = st.one_of(st.none(), _REFS)


def restriction_shapes() -> st.SearchStrategy[tuple[object, ...]]:
    """Restrictions as shapes over name *references*, resolved by :func:`restriction_from`
    against the globals registered at that moment: most names are valid, some are not."""
    return st.one_of(
        st.tuples(st.just("allow"), _REFS),
        st.tuples(st.just("deny"), _REFS),
        st.tuples(st.just("both"), _REFS_OR_NULL, _REFS_OR_NULL),
        st.tuples(st.just("odd"), st.integers(min_value=0, max_value=len(_ODD_RESTRICTIONS) - 1)),
    )


def _name(ref: int, names: tuple[str, ...] | list[str]) -> str:
    if names and ref < 12:
        return names[ref % len(names)]
    return EXTRA_NAMES[ref % len(EXTRA_NAMES)]


def restriction_from(shape: tuple[object, ...], names: tuple[str, ...] | list[str]) -> object:
    """The raw restriction a shape stands for, given the current global names."""
    kind = shape[0]
    if kind == "odd":
        index = shape[1]
        assert isinstance(index, int)
        return _ODD_RESTRICTIONS[index]

    def listed(refs: object) -> list[str] | None:
        return None if refs is None else [_name(int(r), names) for r in refs]  # type: ignore[attr-defined]

    if kind == "both":
        return {"allow": listed(shape[1]), "deny": listed(shape[2])}
    return {str(kind): listed(shape[1])}


def restriction_values() -> st.SearchStrategy[object]:
    """Raw ``{allow?, deny?}`` values, valid and invalid (TF-01, TF-03, TF-07, TF-08)."""
    return st.one_of(
        _LIST.map(lambda names: {"allow": names}),
        _LIST.map(lambda names: {"deny": names}),
        st.builds(lambda a, d: {"allow": a, "deny": d}, _LIST_OR_NULL, _LIST_OR_NULL),
        st.sampled_from(_ODD_RESTRICTIONS),
    )


# --- start controls ----------------------------------------------------------------------


class _Omit:
    """Marks a start control left out of the request (unlike an explicit ``null``)."""

    def __repr__(self) -> str:
        return "OMIT"


OMIT: object = _Omit()

#: Request personas: plain, empty (PE-03), templated, and broken templates (PE-05).
PERSONAS: tuple[str, ...] = (
    "Plain reviewer.",
    "",
    "Reviewer of {{project}}.",
    "{{ project }} lead",
    "Uses {{nope}}.",
    "Broken {{",
)
#: Output schemas: one valid, two not (FR-03).
OUTPUT_SCHEMAS: tuple[object, ...] = (
    {"type": "object", "properties": {"verdict": {"type": "string"}}},
    {"type": "string"},
    "object",
)


def personas() -> st.SearchStrategy[object]:
    """A start's ``persona``: :data:`OMIT`, ``null`` or a text."""
    return st.one_of(st.just(OMIT), st.just(OMIT), st.just(None), st.sampled_from(PERSONAS))


def tool_filters() -> st.SearchStrategy[object]:
    """A start's ``toolFilter``: :data:`OMIT` or a raw restriction value (``null`` included)."""
    return st.one_of(st.just(OMIT), st.just(OMIT), restriction_values())


def output_schemas() -> st.SearchStrategy[object]:
    """A start's ``outputSchema``: :data:`OMIT`, ``null`` or a schema."""
    return st.one_of(
        st.just(OMIT), st.just(OMIT), st.just(OMIT), st.just(None), st.sampled_from(OUTPUT_SCHEMAS)
    )
