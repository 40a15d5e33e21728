"""Tool restrictions: what one restriction admits and when it is valid (TF-01, TF-03, TF-07, TF-08).

A restriction is ``{allow?, deny?}`` over the names of global tools. A list given as ``null``
counts as absent (docs/rules.md, TF "Decision"). A spawn policy is the same shape over preset
names (docs/rules.md#SP-01: allow before deny, validated when installed as TF-08 validates a
filter), so it is a :class:`Restriction` too, validated by :func:`validate_spawn_policy`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from .errors import ErrorCode


@dataclass(frozen=True)
class Restriction:
    """A validated restriction; ``None`` means the list is absent."""

    allow: frozenset[str] | None = None
    deny: frozenset[str] | None = None

    @classmethod
    def of(
        cls, allow: Iterable[str] | None = None, deny: Iterable[str] | None = None
    ) -> Restriction:
        return cls(
            None if allow is None else frozenset(allow), None if deny is None else frozenset(deny)
        )

    def admits(self, name: str) -> bool:
        """TF-01: allow before deny; with both lists the result is allow minus deny."""
        if self.allow is not None and name not in self.allow:
            return False
        return self.deny is None or name not in self.deny


@dataclass(frozen=True)
class RestrictionVerdict:
    """The oracle's answer on installing a restriction: the restriction, or why it is refused."""

    restriction: Restriction | None
    code: ErrorCode | None = None
    reason: str = ""
    #: Every name outside the global restrictable set, in order of first appearance (TF-08).
    offending: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.code is None


@dataclass(frozen=True)
class _Words:
    """How a list validator speaks: a tool filter over tool names, a spawn policy over preset
    names (SP-01 validates a policy as TF-07/TF-08 validate a filter)."""

    code: ErrorCode
    what: str  # "a tool filter"
    items: str  # "tool names"
    no_op: str  # the rule a filter with neither list breaks
    unknown: str  # "the tool filter names tools that are not registered global tools: "
    unknown_rule: str  # "TF-08"
    fix: str  # what to do about unknown names


_FILTER = _Words(
    ErrorCode.INVALID_TOOL_FILTER, "a tool filter", "tool names", "TF-07",
    "the tool filter names tools that are not registered global tools: ", "TF-08",
    "fix the spelling, or register the tool globally first",
)
_POLICY = _Words(
    ErrorCode.INVALID_SPAWN_POLICY, "a spawn policy", "preset names", "SP-01",
    "the spawn policy names presets the deployment does not define: ", "SP-01",
    "fix the spelling (preset names are case-sensitive), or define the preset first",
)


def _names(value: object, key: str, items: str = "tool names") -> tuple[list[str] | None, str]:
    if value is None:
        return None, ""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        return None, f"{key} must be a list of {items}, got {type(value).__name__}"
    bad = [item for item in value if not isinstance(item, str)]
    if bad:
        return None, f"{key} must hold only strings, got {bad[0]!r}"
    return list(value), ""


def validate_restriction(value: object, global_names: Collection[str]) -> RestrictionVerdict:
    """Judge a raw restriction value against the current global restrictable set.

    Refused (code ``INVALID_TOOL_FILTER``, nothing installed): a value that is not an object, has
    a key other than ``allow``/``deny``, or whose lists are not lists of strings; one with neither
    list (TF-07); one naming anything that
    is not a registered global tool, such as a misspelling, a scope-local-only name or the
    reserved ``run_code`` (TF-08), in which case ``offending`` lists every such name.
    """
    return _validate(value, global_names, _FILTER)


def validate_spawn_policy(value: object, preset_names: Collection[str]) -> RestrictionVerdict:
    """Judge a raw spawn policy ``{allow?, deny?}`` over preset names against the presets the
    deployment defines (docs/rules.md#SP-01), as :func:`validate_restriction` judges a tool
    filter: refused with ``INVALID_SPAWN_POLICY`` when malformed, with neither list, or naming a
    preset that does not exist (names are case-sensitive; ``offending`` lists every such name).
    """
    return _validate(value, preset_names, _POLICY)


def _validate(value: object, known_names: Collection[str], words: _Words) -> RestrictionVerdict:
    if not isinstance(value, Mapping):
        return RestrictionVerdict(
            None,
            words.code,
            f"{words.what} must be an object with an allow and/or a deny list",
        )
    # Decision (docs/rules.md is silent): a key other than allow/deny is a misspelling that would
    # make the filter look effective while it is not, the mistake TF-07 exists to catch.
    extra = sorted(str(k) for k in value if k not in ("allow", "deny"))
    if extra:
        return RestrictionVerdict(
            None,
            words.code,
            f"{words.what} takes only allow and deny, not {', '.join(extra)} ({words.no_op})",
        )
    allow, allow_problem = _names(value.get("allow"), "allow", words.items)
    deny, deny_problem = _names(value.get("deny"), "deny", words.items)
    if allow_problem or deny_problem:
        return RestrictionVerdict(None, words.code, allow_problem or deny_problem)
    if allow is None and deny is None:
        return RestrictionVerdict(
            None,
            words.code,
            f"{words.what} with neither allow nor deny changes nothing ({words.no_op}); "
            f"give allow: [...] or deny: [...], or drop the {words.what.rsplit(' ', 1)[1]}",
        )
    known = set(known_names)
    offending: list[str] = []
    for name in [*(allow or ()), *(deny or ())]:
        if name not in known and name not in offending:
            offending.append(name)
    if offending:
        return RestrictionVerdict(
            None,
            words.code,
            words.unknown + ", ".join(offending) + f" ({words.unknown_rule}); {words.fix}",
            tuple(offending),
        )
    return RestrictionVerdict(Restriction.of(allow, deny))
