"""Baselines: the implementer's list of known failures, pinned per assertion (docs/baseline.md).

A baseline is a TOML file::

    catalogue_hash = "9f2c..."            # the catalogue it was written against (optional)

    [[expected-fail]]
    rule = "TF-08"
    provider = "spawn"                    # optional: only this provider's results
    reason = "the error lists only the first unknown name until 0.3"
    tracking = "https://example.org/issues/12"   # optional
    until = 2027-03-31                    # optional: past it the entry fails the run
    assertions = [
      { fingerprint = "3f2a9c1e0b7d", check = "tool-filter-unknown-names", case = "drawn",
        what = "the error for {…} does not list […]", way = "refused INVALID_TOOL_FILTER" },
    ]

An entry excuses exactly the assertions it names, by fingerprint (the other fields of an
assertion say what it is, for the reader; :mod:`.fingerprint`), or with ``scope = "rule"`` and
no assertions the whole rule. What a run makes of it is :mod:`.baseline_judge`. Every mistake
in the file is a usage error that names the entry, its line and the fix. An entry of the old
format (a rule and a reason, nothing pinned) is refused with the command that pins it; only
``subagent-tck baseline update`` reads one (``legacy=True``), to pin it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal

from subagent_tck.spec import ErrorCode, TckError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TABLE = "expected-fail"
_HEADER = re.compile(r"^\s*\[\[\s*" + re.escape(TABLE) + r"\s*\]\]")
FINGERPRINT = re.compile(r"[0-9a-f]{12}")
_EXAMPLE = (f'[[{TABLE}]]\nrule = "TF-07"\nreason = "why it fails, and when it will be fixed"\n'
            'assertions = [{ fingerprint = "3f2a9c1e0b7d" }]')
_KEYS = ("rule", "reason", "provider", "assertions", "scope", "tracking", "until")
_PINNED_KEYS = ("fingerprint", "check", "case", "what", "way", "expected")
#: The command that pins an entry of the old format (whole rules, nothing pinned).
PIN = "subagent-tck baseline update FILE CERTIFICATE.json"


@dataclass(frozen=True)
class Pinned:
    """One assertion an entry names: its fingerprint, and what the writer said it is."""

    fingerprint: str
    check: str = ""
    case: str = ""
    what: str = ""
    way: str = ""
    expected: str = ""

    def describe(self) -> str:
        """``fingerprint (check [case]: what → way)``, or the bare fingerprint."""
        said = f"{self.check} [{self.case}]: {self.what} → {self.way}" if self.what else ""
        return f"{self.fingerprint} ({said})" if said else self.fingerprint


@dataclass(frozen=True)
class BaselineEntry:
    rule: str
    reason: str
    provider: str | None
    number: int  # 1-based position among the file's entries
    line: int  # line of its [[expected-fail]] header (0 when unknown)
    assertions: tuple[Pinned, ...] = ()
    scope: Literal["assertions", "rule"] = "assertions"
    tracking: str | None = None
    until: date | None = None
    #: the old format: a rule (and provider) with nothing pinned (``baseline update`` only)
    legacy: bool = False

    @property
    def where(self) -> str:
        at = f" (line {self.line})" if self.line else ""
        return f"entry {self.number}{at}"

    @property
    def whole_rule(self) -> bool:
        return self.scope == "rule"

    def covers(self, rule: str, provider: str | None) -> bool:
        """Whether the entry speaks of the cell of ``rule`` for ``provider``."""
        return self.rule == rule and self.provider in (None, provider)

    def names(self, fingerprint: str) -> bool:
        return any(p.fingerprint == fingerprint for p in self.assertions)

    def expired(self, today: date) -> bool:
        return self.until is not None and self.until < today


@dataclass(frozen=True)
class Baseline:
    path: str
    entries: tuple[BaselineEntry, ...]
    catalogue_hash: str | None = None

    def validate(self, rules: Mapping[str, object],
                 providers: Iterable[str] | None = None) -> None:
        """Refuse entries naming a rule (or, given ``providers``, a provider) not known."""
        names = None if providers is None else list(providers)
        for entry in self.entries:
            if entry.rule not in rules:
                raise _usage(self.path, entry.where,
                             f"unknown rule id {entry.rule!r}: use an id of `subagent-tck "
                             "rules`, e.g. TF-07")
            if names is not None and entry.provider is not None and entry.provider not in names:
                raise _usage(self.path, entry.where,
                             f"the target has no provider {entry.provider!r}: use one of "
                             f"{', '.join(names) or '(none)'}, or drop `provider`")


def _usage(path: str, where: str, message: str) -> TckError:
    return TckError(ErrorCode.USAGE, f"baseline {path}, {where}: {message}")


def _header_lines(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if _HEADER.match(line)]


def _text(item: Mapping[str, Any], key: str, path: str, where: str) -> str | None:
    value = item.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise _usage(path, where, f"`{key}` must be a non-empty string")
    return value.strip() if isinstance(value, str) else None


def _until(value: Any, path: str, where: str) -> date | None:
    if value is None:
        return None
    if isinstance(value, date) and not hasattr(value, "hour"):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise _usage(path, where, "`until` must be a date, e.g. until = 2027-03-31")


def _pinned(raw: Any, path: str, where: str) -> tuple[Pinned, ...]:
    if not isinstance(raw, list):
        raise _usage(path, where, "`assertions` must be an array of fingerprints or of tables "
                     'like { fingerprint = "3f2a9c1e0b7d" }')
    out: list[Pinned] = []
    for n, item in enumerate(raw, 1):
        fields: dict[str, str] = {}
        if isinstance(item, str):
            fields["fingerprint"] = item
        elif isinstance(item, dict):
            unknown = sorted(k for k in item if k not in _PINNED_KEYS)
            if unknown:
                raise _usage(path, where, f"assertion {n}: unknown key(s) {', '.join(unknown)}"
                             f": an assertion has {', '.join(_PINNED_KEYS)}")
            for key, value in item.items():
                if not isinstance(value, str):
                    raise _usage(path, where, f"assertion {n}: `{key}` must be a string")
                fields[key] = value
        else:
            raise _usage(path, where, f"assertion {n} must be a fingerprint or a table")
        fp = fields.get("fingerprint", "")
        if not FINGERPRINT.fullmatch(fp):
            raise _usage(path, where, f"assertion {n}: fingerprint {fp!r} is not 12 lower-case "
                         "hex digits: copy it from a certificate (`subagent-tck baseline "
                         "write` does)")
        if any(p.fingerprint == fp for p in out):
            raise _usage(path, where, f"assertion {n}: fingerprint {fp} is listed twice")
        out.append(Pinned(**fields))
    return tuple(out)


def _entry(item: Any, number: int, line: int, path: str, legacy: bool) -> BaselineEntry:
    where = f"entry {number}" + (f" (line {line})" if line else "")
    if not isinstance(item, dict):
        raise _usage(path, where, f"must be a table: write it as\n{_EXAMPLE}")
    unknown = sorted(k for k in item if k not in _KEYS)
    if unknown:
        raise _usage(path, where, f"unknown key(s) {', '.join(unknown)}: an entry has "
                     f"{', '.join(_KEYS)}")
    rule, reason = item.get("rule"), item.get("reason")
    if not isinstance(rule, str) or not rule.strip():
        raise _usage(path, where, 'missing `rule`: add the rule id, e.g. rule = "TF-07"')
    if not isinstance(reason, str) or not reason.strip():
        raise _usage(path, where, f"rule {rule}: missing `reason`: say why it is expected "
                     'to fail, e.g. reason = "accepts null lists until 0.3"')
    provider = _text(item, "provider", path, where)
    scope = item.get("scope", "assertions")
    if scope not in ("assertions", "rule"):
        raise _usage(path, where, f'`scope` must be "rule" (the whole rule) or absent, not '
                     f"{scope!r}")
    assertions = _pinned(item["assertions"], path, where) if "assertions" in item else ()
    old = "assertions" not in item and "scope" not in item
    if scope == "rule" and assertions:
        raise _usage(path, where, f'rule {rule}: `scope = "rule"` excuses the whole rule: '
                     "drop `assertions`, or drop `scope` to excuse only them")
    if old and not legacy:
        raise _usage(path, where, f"rule {rule}: the entry names no assertion: pin the ones it "
                     f"excuses with `{PIN}` (from a certificate of the run), or write "
                     'scope = "rule" to excuse the whole rule')
    if "assertions" in item and not assertions:
        raise _usage(path, where, f"rule {rule}: `assertions` is empty: name the failing "
                     'assertions it excuses, or write scope = "rule"')
    return BaselineEntry(rule.strip().upper(), reason.strip(), provider, number, line,
                         assertions, scope, _text(item, "tracking", path, where),
                         _until(item.get("until"), path, where), old)


def parse_baseline(text: str, path: str = "<baseline>",
                   rules: Mapping[str, object] | None = None, *,
                   legacy: bool = False) -> Baseline:
    """Parse baseline ``text``; with ``rules``, unknown rule ids are refused too; with
    ``legacy``, entries of the old format (nothing pinned) are read (to be pinned)."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TckError(ErrorCode.USAGE,
                       f"baseline {path} is not valid TOML ({exc}): fix the syntax; an entry "
                       f"looks like:\n{_EXAMPLE}") from None
    extra = sorted(k for k in data if k not in (TABLE, "catalogue_hash"))
    if extra:
        raise TckError(ErrorCode.USAGE,
                       f"baseline {path}: unexpected top-level key(s) {', '.join(extra)}: a "
                       f"baseline holds catalogue_hash and [[{TABLE}]] entries, like:\n"
                       f"{_EXAMPLE}")
    catalogue = data.get("catalogue_hash")
    if catalogue is not None and not isinstance(catalogue, str):
        raise TckError(ErrorCode.USAGE, f"baseline {path}: `catalogue_hash` must be a string "
                       "(`subagent-tck --version` prints the kit's)")
    raw = data.get(TABLE, [])
    if not isinstance(raw, list):
        raise TckError(ErrorCode.USAGE,
                       f"baseline {path}: `{TABLE}` must be an array of tables: write each "
                       f"entry as\n{_EXAMPLE}")
    lines = _header_lines(text)
    entries = [_entry(item, n, lines[n - 1] if len(lines) == len(raw) else 0, path, legacy)
               for n, item in enumerate(raw, 1)]
    _no_twins(entries, path)
    baseline = Baseline(path, tuple(entries), catalogue)
    if rules is not None:
        baseline.validate(rules)
    return baseline


def _no_twins(entries: list[BaselineEntry], path: str) -> None:
    """One fingerprint is named once per rule and provider; an entry that excuses a whole rule
    (or an old one) is the only entry of its rule and provider."""
    first: dict[tuple[str, str | None], BaselineEntry] = {}
    named: dict[tuple[str, str | None, str], str] = {}
    for entry in entries:
        key = (entry.rule, entry.provider)
        other = first.setdefault(key, entry)
        if other is not entry and (entry.whole_rule or entry.legacy or other.whole_rule
                                   or other.legacy):
            raise _usage(path, entry.where, f"duplicates {other.where} for rule {entry.rule}"
                         " (one of them excuses the whole rule): keep one")
        for pinned in entry.assertions:
            twin = named.setdefault((*key, pinned.fingerprint), entry.where)
            if twin != entry.where:
                raise _usage(path, entry.where, f"assertion {pinned.fingerprint} of rule "
                             f"{entry.rule} is named by {twin} too: keep one")


def read_text(path: str | Path, what: str = "baseline file") -> str:
    """A UTF-8 file's text; a missing or unreadable file is a usage error naming it."""
    file = Path(path)
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TckError(ErrorCode.USAGE, f"{what} {str(path)!r} not found: check the "
                       "path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TckError(ErrorCode.USAGE,
                       f"{what} {str(path)!r} cannot be read ({exc}): pass a UTF-8 "
                       "file") from None


def load_baseline(path: str | Path, rules: Mapping[str, object] | None = None, *,
                  legacy: bool = False) -> Baseline:
    """Read a baseline file; a missing or unreadable file is a usage error."""
    return parse_baseline(read_text(path), str(path), rules, legacy=legacy)
