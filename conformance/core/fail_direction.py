"""Which way a control failed, read from a failing assertion
(docs/matrix.md#which-way-a-control-failed).

**Open**: the child (or the request, or the scope the assertion watched) got more than the rule
allows: a tool past its filter, a depth past its cap, a start its provider or policy must
refuse, a raw placeholder, another agent's persona. **Closed**: it got less, or a valid request
was refused: nothing beyond what was allowed reached it. The first step that decides is the
answer (:class:`Reading` keeps which, as ``basis``):

1. an error of the target (it crashed, hung or broke the protocol) judged no control: none;
2. the checks in ``HINTS`` judge guidance text, whose values only say that a text differs:
   closed (too much or too little guidance gives the child nothing);
3. refusals: an expected value naming an error code of the driver protocol, or a tool result
   with ``isError: true``, asks for one; an observed error body or errored tool result (at the
   top or one mapping down) is one. Accepted where a refusal was due: open; refused otherwise
   (another code, or where none was due): closed;
4. what each side holds (items of lists, ``[name, ...]`` entries as a mapping, keys of
   mappings, words of texts, true flags; empty texts, false, null and empty collections hold
   nothing): a fact only the observed value holds is open, else one it lacks is closed;
5. numbers: in the depth family (docs/rules.md#family-de) and under a key naming a depth, a
   number is a depth and lower is open (a child recorded shallower may delegate past its cap);
   every other number counts what happened, and higher is open;
6. otherwise the same facts in another order or form: closed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from subagent_tck.spec import ErrorCode

#: An error code of the driver protocol, as a word inside an expected text.
_CODES = frozenset(code.value for code in ErrorCode)
_CODE_WORD = re.compile(r"\b[A-Z][A-Z0-9_]*\b")
#: A key whose number is a delegation depth (``childDepth``, ``depth``, ``delegationDepth``).
_DEPTH_KEY = re.compile(r"depth", re.IGNORECASE)
#: The family whose bare numbers are depths (docs/rules.md#family-de).
DEPTH_FAMILY = "DE"
#: The flag of a tool result that marks it as a refusal (docs/driver-api.md).
REFUSAL_FLAG = "isError"


class Direction(str, Enum):
    OPEN = "open"
    CLOSED = "closed"


#: Checks whose values cannot tell which way is more, with the direction they always fail in
#: and why (step 2). A test holds every name here to a registered check.
_NOTICE = (Direction.CLOSED, "the at-cap notice is guidance: the guard, not the notice, holds "
           "the cap (docs/rules.md#ST-08)")
HINTS: dict[str, tuple[Direction, str]] = {
    "subagent-tool-wording": (
        Direction.CLOSED, "the tool's wording is guidance: it grants the child nothing "
        "(docs/rules.md#ST-03)"),
    "subagent-tool-at-cap-notice": _NOTICE,
    "subagent-tool-notice-on-the-cap": _NOTICE,
    "subagent-tool-notice-only-where-due": _NOTICE,
}


@dataclass(frozen=True)
class Reading:
    """The direction of one failing assertion and the step that decided it (``None``: an
    error of the target, no control judged)."""

    direction: Direction | None
    basis: str


def classify(rule: str, check: str, expected: Any, observed: Any,
             error: bool = False) -> Reading:
    """Which way the assertion ``rule``/``check`` failed, from its values (module doc)."""
    if error:
        return Reading(None, "an error of the target: no control was judged")
    hint = HINTS.get(check)
    if hint is not None:
        return Reading(hint[0], f"hint: {hint[1]}")
    due, refused = _asks_refusal(expected), _refusal(observed)
    if due and not refused:
        return Reading(Direction.OPEN, "values: accepted where a refusal was due")
    if due:
        return Reading(Direction.CLOSED, "values: refused as due, but not in the way due")
    if refused and not _refusal(expected):
        return Reading(Direction.CLOSED, "values: refused, where the expected value is no "
                       "such refusal: nothing was let through")
    depth = rule.split("-")[0] == DEPTH_FAMILY
    more, less = _compare(_facts(expected), _facts(observed), depth)
    if more:
        return Reading(Direction.OPEN, f"values: the observed value holds more: {more}")
    if less:
        return Reading(Direction.CLOSED, f"values: the observed value holds less: {less}")
    return Reading(Direction.CLOSED, "values: nothing beyond what was expected (another "
                   "order or form)")


def worst(directions: Iterable[Direction | None]) -> Direction | None:
    """A cell's direction from its assertions': open if any is, else closed if any is."""
    seen = set(directions)
    if Direction.OPEN in seen:
        return Direction.OPEN
    return Direction.CLOSED if Direction.CLOSED in seen else None


# --- step 1: refusals ----------------------------------------------------------------------


def _names_codes(text: str) -> bool:
    return any(word in _CODES for word in _CODE_WORD.findall(text))


def _asks_refusal(expected: Any) -> bool:
    if isinstance(expected, str):
        return _names_codes(expected)
    if isinstance(expected, list) and expected:
        return all(isinstance(item, str) and item in _CODES for item in expected)
    return isinstance(expected, Mapping) and expected.get(REFUSAL_FLAG) is True


def _is_refusal(value: Any) -> bool:
    if not isinstance(value, Mapping):
        return False
    if value.get(REFUSAL_FLAG) is True:
        return True
    code = value.get("code")
    return isinstance(code, str) and code in _CODES and "message" in value


def _refusal(value: Any) -> bool:
    """An error body or an errored tool result, at the top or one mapping down."""
    if _is_refusal(value):
        return True
    return isinstance(value, Mapping) and REFUSAL_FLAG not in value and any(
        _is_refusal(inner) for inner in value.values())


# --- step 2: what each side holds ----------------------------------------------------------

Path = tuple[str, ...]


@dataclass(frozen=True)
class _Facts:
    words: dict[Path, dict[str, int]]  # the words of the texts at each path, counted
    atoms: frozenset[tuple[Path, str]]  # other leaves (true, names of a list of names)
    numbers: dict[Path, list[int | float]]  # as given: an int past 2**53 stays exact


def _facts(value: Any) -> _Facts:
    words: dict[Path, dict[str, int]] = {}
    atoms: set[tuple[Path, str]] = set()
    numbers: dict[Path, list[int | float]] = {}
    for path, leaf in _leaves(value, ()):
        if leaf is True:
            atoms.add((path, "true"))
        elif isinstance(leaf, (int, float)) and not isinstance(leaf, bool):
            numbers.setdefault(path, []).append(leaf)
        elif isinstance(leaf, str):
            counted = words.setdefault(path, {})
            for word in leaf.split():
                counted[word] = counted.get(word, 0) + 1
    return _Facts(words, frozenset(atoms), numbers)


def _entries(items: Sequence[Any]) -> bool:
    """A list of ``[name, ...]`` entries (a view, a prompt's sections, the tools that ran)."""
    return bool(items) and all(isinstance(i, list) and len(i) >= 2 and isinstance(i[0], str)
                               for i in items)


def _leaves(value: Any, path: Path) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _leaves(inner, (*path, str(key)))
    elif isinstance(value, list) and _entries(value):
        for name, *rest in value:
            inner = rest[0] if len(rest) == 1 else rest
            if _empty(inner):
                continue  # an entry with empty content holds nothing
            yield (*path, "[]"), name
            yield from _leaves(inner, (*path, "[]", name))
    elif isinstance(value, list):
        for inner in value:
            yield from _leaves(inner, (*path, "[]"))
    elif not _empty(value):
        yield path, value


def _empty(value: Any) -> bool:
    """Holds nothing: null, false, an empty text or collection (a zero is a number)."""
    return value is None or value is False or (isinstance(value, (str, list, dict))
                                               and not value)


def _kind(path: Path) -> str:
    return "an item" if path and path[-1] == "[]" else "text"


def _compare(expected: _Facts, observed: _Facts, depth_family: bool) -> tuple[str, str]:
    """(what the observed value holds beyond the expected one, what it lacks), each named by
    its kind (never by target-supplied text), or empty."""
    more: set[str] = set()
    less: set[str] = set()
    for path, words in observed.words.items():
        wanted = expected.words.get(path, {})
        if any(n > wanted.get(word, 0) for word, n in words.items()):
            more.add(_kind(path))
    for path, words in expected.words.items():
        got = observed.words.get(path, {})
        if any(n > got.get(word, 0) for word, n in words.items()):
            less.add(_kind(path))
    if observed.atoms - expected.atoms:
        more.add("a flag set")
    if expected.atoms - observed.atoms:
        less.add("a flag set")
    for path in set(expected.numbers) | set(observed.numbers):
        depth = depth_family or any(_DEPTH_KEY.search(part) for part in path)
        # a bare number stands for every number of the other side (1 against {agent, header})
        seen = observed.numbers.get(path) or observed.numbers.get((), [])
        due = expected.numbers.get(path) or expected.numbers.get((), [])
        if depth and seen and due:
            if min(seen) < min(due):
                more.add("a shallower depth (hint: a depth)")
            elif min(seen) > min(due):
                less.add("a deeper depth (hint: a depth)")
        elif not depth:
            # a count of what happened: one only a side has counts as zero on the other
            if max(seen, default=0.0) > max(due, default=0.0):
                more.add("a higher count")
            elif max(seen, default=0.0) < max(due, default=0.0):
                less.add("a lower count")
    return ", ".join(sorted(more)), ", ".join(sorted(less))
