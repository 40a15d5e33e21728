"""The matrix: every certificate side by side, rules down, implementations and versions across
(docs/matrix.md). :func:`build` makes it from certificates read by :mod:`.matrix_read`; the site
(:mod:`.matrix_site`) and ``matrix.json`` are two renderings of the one :class:`Matrix`.

The committed JSON Schema ``matrix.schema.json`` is generated from these models::

    python -m subagent_tck.conformance.report.matrix_model > conformance/report/matrix.schema.json
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from subagent_tck.spec import CATALOGUE, Edition, ErrorCode, TckError, catalogue_hash

from ..core.certificate_assembly import kit_version, replay_command
from ..core.fail_direction import Direction, classify, worst
from .matrix_read import ReadCertificate, ReadRule, Source

SCHEMA_VERSION = "1"
REGENERATE = ("python -m subagent_tck.conformance.report.matrix_model > "
              "conformance/report/matrix.schema.json")
#: The outcome of a rule a certificate does not have (its catalogue had no such rule).
ABSENT = "absent"
#: Outcomes of a cell whose control failed: they say which way (open or closed).
FAILING = ("fail", "expected-fail")
#: Assertions a cell lists (the certificate has all of them; the counts cover all).
SHOWN_ASSERTIONS = 20
#: Outcomes a rule may move between: from good to bad is a regression, back is a fix.
_GOOD = frozenset({"pass", "not-applicable"})
_BAD = frozenset({"fail", "error", "expected-fail", "unexpected-pass"})


class CertificateRef(BaseModel):
    file: str = Field(description="the certificate's file name")
    sha256: str = Field(description="SHA-256 of the certificate file's bytes")


class Assertion(BaseModel):
    """One failing assertion of a cell, with which way it failed."""

    provider: str | None
    check: str
    message: str
    expected: Any = None
    observed: Any = None
    direction: Direction | None = Field(description="open: the child got more than allowed; "
                                        "closed: less, or a valid request refused; null: an "
                                        "error of the target")
    basis: str = Field(description="what decided the direction (docs/matrix.md)")
    example: str | None = None
    replay: str | None = Field(None, description="a command that reproduces it alone")
    fingerprint: str | None = None


class ProviderCell(BaseModel):
    provider: str | None = Field(description="null: decided once for the target")
    outcome: str
    reason: str = ""


class Cell(BaseModel):
    column: str = Field(description="the column's id")
    outcome: str = Field(description="the rule's outcome in that certificate (pass, fail, "
                         "error, not-applicable, expected-fail, unexpected-pass, not-run), or "
                         "absent: the certificate's catalogue has no such rule")
    direction: Direction | None = Field(None, description="fail and expected-fail cells: open "
                                        "when any assertion failed open, else closed")
    reason: str = Field("", description="why not-applicable, expected-fail or not-run, per "
                        "provider")
    providers: list[ProviderCell] = Field(default_factory=list)
    assertions: list[Assertion] = Field(default_factory=list, description=f"the first "
                                        f"{SHOWN_ASSERTIONS} failing assertions")
    assertions_total: int = 0
    open_assertions: int = 0
    closed_assertions: int = 0
    replay: str | None = Field(None, description="the command that reruns this rule alone")
    href: str = Field(description="the cell's page and anchor, relative to the site")


class Row(BaseModel):
    rule: str
    title: str = Field(description="the rule's id and name, as docs/rules.md heads it")
    name: str = Field(description="the rule's name (its slug)")
    level: str
    family: str
    capability: str | None = None
    component: str | None = None
    edition: str | None = None
    href: str = Field(description="the rule in docs/rules.md, relative to the site")
    cells: list[Cell]


class Column(BaseModel):
    id: str
    implementation: str
    version: str
    edition: str
    target: str = Field(description="the TARGET argument it was certified as")
    verdict: str
    catalogue_hash: str
    current_catalogue: bool = Field(description="certified against this kit's catalogue")
    kit_version: str
    seed: int | None
    profile: str
    baseline: str | None
    partial: bool = Field(description="a --rule or --provider run: not a whole certificate")
    certificate: CertificateRef
    counts: dict[str, int] = Field(description="cells per outcome")
    passed: int
    fail_open: int = Field(description="failing cells (fail, expected-fail) that failed open")
    fail_closed: int
    line: str = Field(description="the id of its implementation and edition (its trend, its "
                      "badge)")
    page: str
    verdicts: list[dict[str, Any]] = Field(default_factory=list, description="per provider "
                                           "and capability, as the certificate has them")


class TrendPoint(BaseModel):
    column: str
    version: str
    verdict: str
    catalogue_hash: str
    catalogue_changed: bool = Field(description="its catalogue differs from the previous "
                                    "point's: a rule new there is no regression")
    new_rules: list[str] = Field(default_factory=list)
    gone_rules: list[str] = Field(default_factory=list)
    passed: int
    failed: int
    fail_open: int
    expected_fail: int
    not_applicable: int


class TrendChange(BaseModel):
    rule: str
    column: str = Field(description="the point where it changed")
    before: str
    after: str
    kind: str = Field(description="regression (good to bad, same catalogue), fixed, new-rule, "
                      "gone, catalogue-changed (good to bad under a changed catalogue), "
                      "changed")


class Line(BaseModel):
    """One implementation in one edition: its badge, and its trend when certified at several
    versions."""

    id: str
    implementation: str
    edition: str
    columns: list[str] = Field(description="its columns, oldest version first")
    badge: str
    points: list[TrendPoint] = Field(default_factory=list)
    changes: list[TrendChange] = Field(default_factory=list)


class Matrix(BaseModel):
    schema_version: str = SCHEMA_VERSION
    kit: str = "subagent-tck"
    kit_version: str
    catalogue_hash: str = Field(description="this kit's catalogue")
    rules_href: str = Field(description="where docs/rules.md is, relative to the site")
    columns: list[Column]
    rows: list[Row]
    lines: list[Line]


# --- building ------------------------------------------------------------------------------


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.") or "x"


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Versions in numeric order: ``2.1.9`` before ``2.1.10``."""
    return tuple((0, int(p)) if p.isdigit() else (1, p)
                 for p in re.split(r"(\d+)", version) if p)


def _assertions(rule: ReadRule) -> list[Assertion]:
    out = []
    for f in rule.failures:
        reading = classify(rule.id, f.check, f.expected, f.observed, f.error)
        out.append(Assertion(provider=f.provider, check=f.check, message=f.message,
                             expected=f.expected, observed=f.observed,
                             direction=reading.direction, basis=reading.basis,
                             example=f.example, replay=f.replay, fingerprint=f.fingerprint))
    return out


def _reason(rule: ReadRule) -> str:
    grouped: dict[str, list[str]] = {}
    for p in rule.providers:
        if p.reason:
            grouped.setdefault(p.reason, []).append(p.provider or "target")
    return "; ".join(f"{', '.join(who)}: {why}" for why, who in grouped.items())


def _replay(cert: ReadCertificate, rule: ReadRule) -> str | None:
    """The certificate's replay of ``rule``, or the kit's command for it (a baselined failure
    has none in its certificate: the replay shows it failing, without the baseline)."""
    if rule.replay or rule.outcome not in (*FAILING, "error", "unexpected-pass"):
        return rule.replay
    if cert.seed is None or cert.edition not in {e.value for e in Edition}:
        return None
    return replay_command(cert.target.spec, rule.id, cert.seed, Edition(cert.edition),
                          cert.profile or "ci", cert.selected_providers)


def _cell(column: str, cert: ReadCertificate, rule: ReadRule | None, rule_id: str) -> Cell:
    href = f"targets/{column}.html#{rule_id.lower()}"
    if rule is None:
        return Cell(column=column, outcome=ABSENT, href=href)
    assertions = _assertions(rule) if rule.outcome in (*FAILING, "error") else []
    directions = [a.direction for a in assertions]
    return Cell(
        column=column, outcome=rule.outcome,
        direction=worst(directions) if rule.outcome in FAILING else None,
        reason=_reason(rule),
        providers=[ProviderCell(provider=p.provider, outcome=p.outcome, reason=p.reason)
                   for p in rule.providers],
        assertions=assertions[:SHOWN_ASSERTIONS], assertions_total=len(assertions),
        open_assertions=directions.count(Direction.OPEN),
        closed_assertions=directions.count(Direction.CLOSED),
        replay=_replay(cert, rule), href=href)


def _column_ids(sources: Sequence[Source]) -> list[str]:
    ids = []
    for source in sources:
        cert = source.certificate
        ids.append(slug(f"{cert.target.info.name}-{cert.target.info.version}-{cert.edition}"))
    return [f"{i}-{s.sha256[:8]}" if ids.count(i) > 1 else i
            for i, s in zip(ids, sources, strict=True)]


def build(sources: Sequence[Source], rules_href: str = "../rules.md") -> Matrix:
    """The matrix of ``sources`` (in any order: columns go by implementation name, edition and
    version, so the same certificates always give the same matrix)."""
    if not sources:
        raise TckError(ErrorCode.USAGE, "give at least one certificate (CERT.json)")
    order = sorted(zip(_column_ids(sources), sources, strict=True), key=lambda p: (
        p[1].certificate.target.info.name.lower(), p[1].certificate.edition,
        version_key(p[1].certificate.target.info.version), p[0]))
    by_column = {cid: {r.id: r for r in s.certificate.rules} for cid, s in order}
    catalogue = {rule.id: rule for rule in CATALOGUE}
    seen = {rule_id for rules in by_column.values() for rule_id in rules}
    ids = [r.id for r in CATALOGUE if r.id in seen] + sorted(seen - set(catalogue))
    rows = []
    for rule_id in ids:
        known = catalogue.get(rule_id)
        read = next(rules[rule_id] for rules in by_column.values() if rule_id in rules)
        rows.append(Row(
            rule=rule_id, title=known.title if known else read.title,
            name=known.slug if known else read.title.removeprefix(rule_id).strip(),
            level=known.level.value if known else read.level,
            family=known.family.value if known else read.family,
            capability=(known.capability.value if known and known.capability else
                        None if known else read.capability),
            component=(known.component.value if known and known.component else
                       None if known else read.component),
            edition=(known.edition.value if known and known.edition else
                     None if known else read.edition),
            href=f"{rules_href}#{rule_id.lower()}",
            cells=[_cell(cid, source.certificate, by_column[cid].get(rule_id), rule_id)
                   for cid, source in order]))
    columns = [_column(cid, source, rows) for cid, source in order]
    return Matrix(kit_version=kit_version(), catalogue_hash=catalogue_hash(),
                  rules_href=rules_href, columns=columns, rows=rows,
                  lines=_lines(columns, rows, by_column))


def _column(cid: str, source: Source, rows: Sequence[Row]) -> Column:
    cert = source.certificate
    cells = [c for row in rows for c in row.cells if c.column == cid]
    counts: dict[str, int] = {}
    for cell in cells:
        counts[cell.outcome] = counts.get(cell.outcome, 0) + 1
    failing = [c for c in cells if c.outcome in FAILING]
    return Column(
        id=cid, implementation=cert.target.info.name, version=cert.target.info.version,
        edition=cert.edition, target=cert.target.spec, verdict=cert.verdict,
        catalogue_hash=cert.catalogue_hash,
        current_catalogue=cert.catalogue_hash == catalogue_hash(),
        kit_version=cert.kit_version, seed=cert.seed, profile=cert.profile,
        baseline=cert.baseline,
        partial=cert.selected_rules is not None or cert.selected_providers is not None,
        certificate=CertificateRef(file=source.file, sha256=source.sha256),
        counts=counts, passed=counts.get("pass", 0),
        fail_open=sum(c.direction == Direction.OPEN for c in failing),
        fail_closed=sum(c.direction == Direction.CLOSED for c in failing),
        line=slug(f"{cert.target.info.name}-{cert.edition}"), page=f"targets/{cid}.html",
        verdicts=[v.model_dump() for v in cert.verdicts])


def _label(cell: Cell) -> str:
    return f"{cell.outcome} ({cell.direction.value})" if cell.direction else cell.outcome


def _change(before: Cell, after: Cell, catalogue_changed: bool) -> str | None:
    if _label(before) == _label(after):
        return None
    if before.outcome == ABSENT:
        return "new-rule"
    if after.outcome == ABSENT:
        return "gone"
    if before.outcome in _GOOD and after.outcome in _BAD:
        return "catalogue-changed" if catalogue_changed else "regression"
    if before.outcome in _BAD and after.outcome in _GOOD:
        return "fixed"
    return "changed"


def _lines(columns: Sequence[Column], rows: Sequence[Row],
           by_column: dict[str, dict[str, ReadRule]]) -> list[Line]:
    grouped: dict[str, list[Column]] = {}
    for column in columns:
        grouped.setdefault(column.line, []).append(column)
    lines = []
    for line_id, members in grouped.items():
        points: list[TrendPoint] = []
        changes: list[TrendChange] = []
        for before, after in zip([None, *members], members, strict=False):
            changed = before is not None and before.catalogue_hash != after.catalogue_hash
            old = set(by_column[before.id]) if before is not None else set()
            new = set(by_column[after.id])
            points.append(TrendPoint(
                column=after.id, version=after.version, verdict=after.verdict,
                catalogue_hash=after.catalogue_hash, catalogue_changed=changed,
                new_rules=sorted(new - old) if changed else [],
                gone_rules=sorted(old - new) if changed else [],
                passed=after.passed, failed=after.counts.get("fail", 0)
                + after.counts.get("error", 0) + after.counts.get("unexpected-pass", 0),
                fail_open=after.fail_open, expected_fail=after.counts.get("expected-fail", 0),
                not_applicable=after.counts.get("not-applicable", 0)))
            if before is None:
                continue
            for row in rows:
                cells = {c.column: c for c in row.cells}
                kind = _change(cells[before.id], cells[after.id], changed)
                if kind is not None:
                    changes.append(TrendChange(rule=row.rule, column=after.id,
                                               before=_label(cells[before.id]),
                                               after=_label(cells[after.id]), kind=kind))
        lines.append(Line(id=line_id, implementation=members[0].implementation,
                          edition=members[0].edition, columns=[m.id for m in members],
                          badge=f"badges/{line_id}.svg",
                          points=points if len(members) > 1 else [],
                          changes=changes))
    return lines


def json_schema() -> str:
    """The JSON Schema of ``matrix.json``, as committed in ``matrix.schema.json``."""
    schema = Matrix.model_json_schema()
    schema["title"] = "subagent-tck matrix"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(json_schema(), end="")
