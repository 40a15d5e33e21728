"""The depth values the DE checks pass: docs/rules.md DE "Decision (domain)" as a table of what
a caller passes (docs/rules.md#DE-05, docs/rules.md#DE-06, docs/rules.md#DE-07), the class of
each value and a partition per class, and strategies of depths, caps and chain lengths.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import MAX_SAFE_INTEGER, check_depth, read_json_number

from ..partitions import Partition

MAX = MAX_SAFE_INTEGER

#: docs/rules.md DE "Decision (domain)", as values a caller passes: JSON texts read as JavaScript
#: reads them (``spec.read_json_number``) and Python values.
TABLE: tuple[tuple[str, object], ...] = (
    ("JSON -0", read_json_number("-0")),
    ("JSON -0.0", read_json_number("-0.0")),
    ("JSON 1.0", read_json_number("1.0")),
    ("JSON 1e2", read_json_number("1e2")),
    ("2^53-1", MAX),
    ("2^53", 2**53),
    ("JSON 9007199254740993", read_json_number("9007199254740993")),
    ("NaN", float("nan")),
    ("Infinity", float("inf")),
    ("-Infinity", float("-inf")),
    ("-1", -1),
    ("0.5", 0.5),
    ("True", True),
    ('"1"', "1"),
    ("None", None),
    ("[]", []),
    ("{}", {}),
)

#: The class of each value of :data:`TABLE` (docs/rules.md DE "Decision (domain)"); the
#: oracle says which are outside the domain (:data:`OUT_OF_DOMAIN`).
CLASS_OF = {
    "JSON -0": "negative-zero", "JSON -0.0": "negative-zero", "JSON 1.0": "integral-float",
    "JSON 1e2": "integral-float", "2^53-1": "max-safe", "2^53": "unsafe-integer",
    "JSON 9007199254740993": "unsafe-integer", "NaN": "non-finite", "Infinity": "non-finite",
    "-Infinity": "non-finite", "-1": "negative", "0.5": "fractional", "True": "boolean",
    '"1"': "string", "None": "null", "[]": "list", "{}": "object",
}
CLASSES = tuple(dict.fromkeys(CLASS_OF.values()))
OUT_OF_DOMAIN = tuple(dict.fromkeys(CLASS_OF[n] for n, v in TABLE if not check_depth(v).ok))
_WORDS = {"negative-zero": "-0 (JSON -0, -0.0)", "integral-float": "an integral float (1.0, "
          "1e2)", "max-safe": "2^53-1", "unsafe-integer": "an integer past 2^53-1",
          "non-finite": "NaN or an infinity", "negative": "a negative integer",
          "fractional": "a fraction", "boolean": "a boolean", "string": "a numeric string",
          "null": "null", "list": "a list", "object": "an object"}


def value_partitions(rule: str, where: str = "", classes: tuple[str, ...] = CLASSES,
                     words: str = "") -> tuple[Partition, ...]:
    """One partition of ``rule`` per value class of :data:`TABLE` (prefixed ``where``)."""
    return tuple(Partition(rule, f"{where}{c}", f"{_WORDS[c]}{words}") for c in classes)


_INTEGERS = st.one_of(st.integers(0, 8), st.integers(MAX - 2, MAX + 2))


@st.composite
def spelling_st(draw: Any) -> object:
    """A JSON text for a number, in one of the spellings JSON allows (``3``, ``3.0``,
    ``3.000``, ``3e0``, ``3E+0``, ``30e-1``, ``0.3e1``, a sign, a fraction, an exponent that
    overflows), read as JavaScript reads it: the domain decides on the value, not the text."""
    n = draw(_INTEGERS)
    sign = draw(st.sampled_from(("", "", "-")))
    text = draw(st.sampled_from((
        f"{n}", f"{n}.0", f"{n}.000", f"{n}e0", f"{n}E+0", f"{n * 10}e-1", f"{n}.5",
        f"0.{n}e{len(str(n))}", f"{n}e400", f"{n}E-1",
    )))
    return read_json_number(sign + text)


#: Any value a caller might pass as a depth.
anything_st = st.one_of(
    spelling_st(),
    st.integers(min_value=-3, max_value=8),
    st.integers(min_value=MAX - 2, max_value=MAX + 2),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
    st.lists(st.integers(0, 3), max_size=1),
    st.dictionaries(st.sampled_from("ab"), st.integers(0, 3), max_size=1),
)
small_st = st.integers(min_value=0, max_value=6)
#: Chain lengths: none, one, around the explicit cases, and deeper than any of them.
length_st = st.one_of(st.sampled_from((0, 1, 2, 5, 6)), st.integers(0, 12))


@st.composite
def chain_cap_st(draw: Any) -> tuple[int, int]:
    """A chain length and a cap for a start from its deepest child: the cap one below, at and
    one above the new child's depth, or far above it (limit-1, limit, limit+1, big)."""
    length = draw(length_st)
    child = length + 1
    limit = draw(st.sampled_from((child - 1, child, child + 1, child + 1000)))
    return length, max(limit, 0)


def label(value: object) -> str:
    return next((name for name, v in TABLE if v is value), repr(value))
