""""Did you mean": the closest known name to a mistyped one (docs/certify.md, "Command line").

One helper for every name a user types: target kinds, rule ids, ``python:`` factories,
providers, editions, profiles, commands and operations. The known names are whatever the caller
holds at that moment (the catalogue, a module's attributes, a target's providers), never a
fixed list.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_RULE_ID = re.compile(r"^\s*([A-Za-z]{2})[-_ ]?0*(\d{1,3})\s*$")


def closest(word: str, known: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The known name ``word`` most likely misspells, or None when nothing is close.

    A match that differs only in case, or in ``-``/``_``, wins outright; else difflib's ratio
    decides (over lowercased names, so ``Spawn`` still finds ``spawn``)."""
    names = list(dict.fromkeys(str(k) for k in known))
    if not names or not word:
        return None

    def fold(name: str) -> str:
        return name.casefold().replace("_", "-")

    folded = fold(word)
    for name in names:
        if fold(name) == folded:
            return name
    by_fold = {fold(name): name for name in names}
    found = difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=cutoff)
    return by_fold[found[0]] if found else None


def closest_rule(word: str, known: Iterable[str]) -> str | None:
    """A rule id ``word`` means: ``TF-1``, ``tf01`` and ``TF_001`` all mean ``TF-01`` when the
    catalogue has it; else the closest id by spelling."""
    ids = list(known)
    match = _RULE_ID.match(word)
    if match:
        family, number = match.group(1).upper(), int(match.group(2))
        for width in (2, 3):
            candidate = f"{family}-{number:0{width}d}"
            if candidate in ids:
                return candidate
    return closest(word.strip().upper(), ids)


def hint(word: str, known: Iterable[str]) -> str:
    """``" (did you mean 'spawn'?)"`` for the closest known name, or ``""``: written right
    after the misspelt name in a message."""
    return phrase(closest(word, known), word)


def rule_hint(word: str, known: Iterable[str]) -> str:
    """``" (did you mean TF-01?)"`` for a rule id, or ``""``."""
    found = closest_rule(word, known)
    return "" if found is None or found == word else f" (did you mean {found}?)"


def phrase(found: str | None, word: str = "") -> str:
    return "" if found is None or found == word else f" (did you mean {found!r}?)"

