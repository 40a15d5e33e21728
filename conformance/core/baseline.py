"""Baselines: the implementer's list of known failures (docs/architecture.md).

A baseline is a TOML file of ``[[expected-fail]]`` entries::

    [[expected-fail]]
    rule = "TF-07"
    reason = "null lists are accepted until 0.3"
    provider = "spawn"          # optional: only this provider's result

A listed rule that fails (or errors) is ``expected-fail``; a listed rule that passes is
``unexpected-pass`` and fails the run, so a fixed bug cannot hide behind a stale entry. An
entry without ``provider`` lists the rule as a whole: it is unexpected-pass only once the rule
passes everywhere (its passing providers stay passes while it still fails for another, or
target-wide); with ``provider`` it lists exactly that provider's result. Every
mistake in the file is a usage error that names the entry, its line and the fix.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subagent_tck.spec import ErrorCode, TckError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TABLE = "expected-fail"
_HEADER = re.compile(r"^\s*\[\[\s*" + re.escape(TABLE) + r"\s*\]\]")
_EXAMPLE = f'[[{TABLE}]]\nrule = "TF-07"\nreason = "why it fails, and when it will be fixed"'


@dataclass(frozen=True)
class BaselineEntry:
    rule: str
    reason: str
    provider: str | None
    number: int  # 1-based position among the file's entries
    line: int  # line of its [[expected-fail]] header (0 when unknown)

    @property
    def where(self) -> str:
        at = f" (line {self.line})" if self.line else ""
        return f"entry {self.number}{at}"


@dataclass(frozen=True)
class Baseline:
    path: str
    entries: tuple[BaselineEntry, ...]

    def match(self, rule: str, provider: str | None) -> BaselineEntry | None:
        """The entry covering ``rule`` for ``provider`` (None: a target-wide result)."""
        for entry in self.entries:
            if entry.rule == rule and entry.provider in (None, provider):
                return entry
        return None

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


def parse_baseline(text: str, path: str = "<baseline>",
                   rules: Mapping[str, object] | None = None) -> Baseline:
    """Parse baseline ``text``; with ``rules``, unknown rule ids are refused too."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TckError(ErrorCode.USAGE,
                       f"baseline {path} is not valid TOML ({exc}): fix the syntax; an entry "
                       f"looks like:\n{_EXAMPLE}") from None
    extra = sorted(k for k in data if k != TABLE)
    if extra:
        raise TckError(ErrorCode.USAGE,
                       f"baseline {path}: unexpected top-level key(s) {', '.join(extra)}: a "
                       f"baseline holds only [[{TABLE}]] entries, like:\n{_EXAMPLE}")
    raw = data.get(TABLE, [])
    if not isinstance(raw, list):
        raise TckError(ErrorCode.USAGE,
                       f"baseline {path}: `{TABLE}` must be an array of tables: write each "
                       f"entry as\n{_EXAMPLE}")
    lines = _header_lines(text)
    entries: list[BaselineEntry] = []
    seen: dict[tuple[str, str | None], str] = {}
    for number, item in enumerate(raw, 1):
        line = lines[number - 1] if len(lines) == len(raw) else 0
        where = f"entry {number}" + (f" (line {line})" if line else "")
        if not isinstance(item, dict):
            raise _usage(path, where, f"must be a table: write it as\n{_EXAMPLE}")
        unknown = sorted(k for k in item if k not in ("rule", "reason", "provider"))
        if unknown:
            raise _usage(path, where, f"unknown key(s) {', '.join(unknown)}: an entry has "
                         "`rule`, `reason` and optionally `provider`")
        rule, reason, provider = item.get("rule"), item.get("reason"), item.get("provider")
        if not isinstance(rule, str) or not rule.strip():
            raise _usage(path, where, 'missing `rule`: add the rule id, e.g. rule = "TF-07"')
        if not isinstance(reason, str) or not reason.strip():
            raise _usage(path, where, f"rule {rule}: missing `reason`: say why it is expected "
                         'to fail, e.g. reason = "accepts null lists until 0.3"')
        if provider is not None and (not isinstance(provider, str) or not provider.strip()):
            raise _usage(path, where, "`provider` must be a provider name (a string)")
        entry = BaselineEntry(rule.strip().upper(), reason.strip(), provider, number, line)
        key = (entry.rule, entry.provider)
        if key in seen:
            raise _usage(path, where, f"duplicates {seen[key]} for rule {entry.rule}: keep one")
        seen[key] = entry.where
        entries.append(entry)
    baseline = Baseline(path, tuple(entries))
    if rules is not None:
        baseline.validate(rules)
    return baseline


def load_baseline(path: str | Path, rules: Mapping[str, object] | None = None) -> Baseline:
    """Read a baseline file; a missing or unreadable file is a usage error."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TckError(ErrorCode.USAGE, f"baseline file {str(path)!r} not found: check the "
                       "--baseline path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TckError(ErrorCode.USAGE,
                       f"baseline file {str(path)!r} cannot be read ({exc}): pass a UTF-8 TOML "
                       "file") from None
    return parse_baseline(text, str(path), rules)
