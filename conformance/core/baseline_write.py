"""Writing and refreshing a baseline from a certificate (docs/baseline.md#the-commands).

- :func:`write` turns a certificate's failing assertions into a baseline that excuses exactly
  them: one entry per rule (with ``provider`` when only one provider's results fail), every
  assertion by fingerprint with what it is, one reason for all.
- :func:`update` keeps the entries still needed with their reasons (and comments: the file is
  edited, not rewritten, with tomlkit), drops the assertions and entries that are stale, pins
  the entries of the old format (a rule, nothing pinned) to the assertions they excuse, and
  lists the failing assertions no entry names: it adds them, as entries of their own, only
  with a reason given for them (``--accept-new --reason TEXT``).

Both take a certificate that :func:`.certificate_file.read_certificate` has checked (a JSON
certificate of this catalogue's rules) and refuse one of an interrupted run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import tomlkit
from tomlkit.items import AoT, Array, Table

from subagent_tck.spec import RULES_BY_ID, ErrorCode, TckError

from .baseline import TABLE, Baseline, BaselineEntry, Pinned, parse_baseline
from .baseline_judge import BASELINE_CHECK, sample_excuser, sort_pinned
from .certificate import Certificate
from .fingerprint import Assertion

#: A failing assertion of a certificate: rule, the provider it failed for, the assertion.
Found = tuple[str, "str | None", Assertion]


def failing(certificate: Certificate, where: str = "the certificate") -> list[Found]:
    """Every failing assertion of the certificate once, in catalogue order (a stale entry's
    failure is the baseline's, not the target's: left out)."""
    if certificate.interrupted:
        raise TckError(ErrorCode.USAGE, f"{where} is of an interrupted run (Ctrl-C): its "
                       "rules did not all run; certify again")
    out: dict[tuple[str, str | None, str], Found] = {}
    for rule in certificate.rules:
        for failure in rule.failures:
            if failure.check == BASELINE_CHECK:
                continue
            if failure.assertion is None:
                raise TckError(ErrorCode.USAGE, f"{where} has failures without assertion "
                               "fingerprints (an older kit made it): certify again with this "
                               "kit")
            out.setdefault((rule.id, failure.provider, failure.assertion.fingerprint),
                           (rule.id, failure.provider, failure.assertion))
    return list(out.values())


def _assertions(found: Iterable[Assertion | Pinned]) -> Array:
    array = tomlkit.array()
    for a in found:
        table = tomlkit.inline_table()
        table.update({k: v for k, v in (("fingerprint", a.fingerprint), ("check", a.check),
                                        ("case", a.case), ("what", a.what), ("way", a.way))
                      if v})
        array.append(table)
    array.multiline(True)
    return array


def _entry(rule: str, provider: str | None, reason: str, found: Sequence[Assertion]) -> Table:
    table = tomlkit.table()
    table.add("rule", rule)
    if provider is not None:
        table.add("provider", provider)
    table.add("reason", reason)
    table.add("assertions", _assertions(found))
    return table


def _group(found: Iterable[Found]) -> dict[tuple[str, str | None], list[Assertion]]:
    """Assertions by rule, with the provider when only one provider's failed (else None)."""
    by_rule: dict[str, list[Found]] = {}
    for item in found:
        by_rule.setdefault(item[0], []).append(item)
    out: dict[tuple[str, str | None], list[Assertion]] = {}
    for rule, items in by_rule.items():
        providers = {p for _, p, _ in items}
        provider = next(iter(providers)) if len(providers) == 1 else None
        out[rule, provider] = list({a.fingerprint: a for _, _, a in items}.values())
    return out


def _header(certificate: Certificate, source: str) -> str:
    info = certificate.target.info
    return (f"Expected failures of {info.name} {info.version} (target {certificate.target.spec}), "
            f"edition {certificate.edition.value}, written by `subagent-tck baseline write` "
            f"from {source} (kit {certificate.kit_version}, seed {certificate.seed}). Each "
            "entry excuses exactly the assertions it names (docs/baseline.md); "
            "`subagent-tck baseline update` refreshes it.")


def write(certificate: Certificate, reason: str, source: str) -> tuple[str, int]:
    """A baseline excusing exactly the certificate's failing assertions, and how many."""
    if not reason.strip():
        raise TckError(ErrorCode.USAGE, "--reason is empty: say why these failures are "
                       "expected, e.g. --reason 'DSH 0.1: known divergences, see docs/dsh.md'")
    found = failing(certificate, source)
    doc = tomlkit.document()
    for line in _wrap(_header(certificate, source)):
        doc.add(tomlkit.comment(line))
    doc.add("catalogue_hash", certificate.catalogue_hash)
    entries = tomlkit.aot()
    for (rule, provider), assertions in _group(found).items():
        entries.append(_entry(rule, provider, reason.strip(), assertions))
    if len(entries):
        doc.add(TABLE, entries)
    return tomlkit.dumps(doc), len(found)


def _wrap(text: str, width: int = 96) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


@dataclass
class Update:
    """What :func:`update` did: the new text and what it kept, dropped, pinned and found."""

    text: str
    kept: int = 0
    dropped: list[str] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)
    new: list[Found] = field(default_factory=list)
    added: int = 0


def _covered(entry: BaselineEntry, rule: str, provider: str | None) -> bool:
    return entry.covers(rule, provider)


def update(text: str, path: str, certificate: Certificate, source: str, *,
           accept_reason: str | None, today: date) -> Update:
    """``text`` (the baseline in ``path``) refreshed from ``certificate`` (see the module doc).
    Expired entries are kept as they are: renewing one is the reader's decision."""
    baseline = parse_baseline(text, path, RULES_BY_ID, legacy=True)
    _same_catalogue(baseline, certificate, path, source)
    found = failing(certificate, source)
    ran = {r.id for r in certificate.rules
           if any(p.outcome.value in ("pass", "fail", "error", "expected-fail")
                  for p in r.providers)}
    doc = tomlkit.parse(text)
    tables = doc.get(TABLE)
    aot: AoT = tables if isinstance(tables, AoT) else tomlkit.aot()
    result = Update(text="")
    excused: set[tuple[str, str | None, str]] = set()
    keep: list[Table] = []
    kept: list[BaselineEntry] = []
    for entry, table in zip(baseline.entries, list(aot), strict=True):
        mine = [(r, p, a) for r, p, a in found if _covered(entry, r, p)]
        if entry.expired(today) or entry.rule not in ran:
            keep.append(table)  # expired, or its rule did not run here: nothing to judge
            kept.append(entry)
            excused |= {(r, p, a.fingerprint) for r, p, a in mine
                        if entry.whole_rule or entry.legacy or entry.names(a.fingerprint)}
            continue
        if entry.whole_rule or entry.legacy:
            if not mine:
                result.dropped.append(f"{entry.where} ({entry.rule}): nothing of it fails")
                continue
            if entry.legacy:
                table["assertions"] = _assertions({a.fingerprint: a for _, _, a in mine}
                                                  .values())
                count = len({a.fingerprint for _, _, a in mine})
                result.pinned.append(f"{entry.where} ({entry.rule}): {count} assertion(s)")
            excused |= {(r, p, a.fingerprint) for r, p, a in mine}
            keep.append(table)
            kept.append(entry)
            continue
        current = {a.fingerprint: a for _, _, a in mine}
        unseen, stale = sort_pinned(entry, list(current.values()))
        result.dropped += [f"{entry.where} ({entry.rule}): "
                           f"{p.describe() if p else 'the whole rule'}" for p, _ in stale]
        samples = {p.fingerprint for p, _ in unseen}
        still: list[Assertion | Pinned] = [
            current.get(p.fingerprint, p) for p in entry.assertions
            if p.fingerprint in current or p.fingerprint in samples]
        if not still:
            continue
        table["assertions"] = _assertions(still)
        excused |= {(r, p, a.fingerprint) for r, p, a in mine if entry.names(a.fingerprint)}
        keep.append(table)
        kept.append(entry)
    result.kept = len(keep)
    active = {e.number for e in kept if any(
        (r, p, a.fingerprint) in excused and a.case not in ("drawn", "campaign")
        for r, p, a in found if e.covers(r, p))}
    result.new = [(r, p, a) for r, p, a in found if (r, p, a.fingerprint) not in excused
                  and sample_excuser(kept, r, p, a, active) is None]
    if accept_reason is not None and result.new:
        for (rule, provider), assertions in _group(result.new).items():
            keep.append(_entry(rule, provider, accept_reason.strip(), assertions))
            result.added += 1
    result.text = re.sub(r"\n{3,}", "\n\n", tomlkit.dumps(_rebuild(doc, keep,
                                                                  certificate.catalogue_hash)))
    parse_baseline(result.text, path, RULES_BY_ID)  # what it writes, certify reads
    return result


def _same_catalogue(baseline: Baseline, certificate: Certificate, path: str,
                    source: str) -> None:
    if baseline.catalogue_hash not in (None, certificate.catalogue_hash):
        raise TckError(ErrorCode.USAGE, f"baseline {path} was written for catalogue "
                       f"{baseline.catalogue_hash}, but {source} is of catalogue "
                       f"{certificate.catalogue_hash}: its rules may mean other things now; "
                       "write a new baseline from the certificate (`subagent-tck baseline "
                       "write`) and carry the reasons over")


def _rebuild(doc: Any, keep: list[Table], catalogue: str) -> Any:
    """A document of ``doc``'s leading comments, the catalogue hash, its other keys and the
    kept entries (each with the comments inside it)."""
    from tomlkit.items import Comment, Whitespace

    out = tomlkit.document()
    body = list(doc.body)
    lead = 0
    while lead < len(body) and body[lead][0] is None:
        if isinstance(body[lead][1], (Comment, Whitespace)):
            out.add(body[lead][1])
        lead += 1
    out.add("catalogue_hash", catalogue)
    for key, item in body[lead:]:
        if key is not None and getattr(key, "key", key) not in (TABLE, "catalogue_hash"):
            out.add(key, item)
    if keep:
        aot = tomlkit.aot()
        for table in keep:
            aot.append(table)
        out.add(TABLE, aot)
    return out


def describe(found: Found) -> str:
    rule, provider, assertion = found
    return f"{rule} [{provider or 'target'}] {assertion.fingerprint} {assertion.summary()}"

