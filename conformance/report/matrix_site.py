"""The matrix as a static site (docs/matrix.md): ``index.html`` (the table), one page per
certificate (``targets/ID.html``, an anchor per rule: the cells link there), ``trend.html``,
``matrix.json``, one badge per implementation and edition (``badges/ID.svg``), a stylesheet and
a script that only filters. It opens from disk and from any static host: relative links, no
server, no external resource.

Every page is a Jinja2 template with autoescape on, and every value the templates print passes
:func:`~..core.untrusted.for_terminal` first (the environment's ``finalize``), so text a target
supplied (a name, a reason, a message, an observed value) shows as text: HTML is escaped and
control and bidi characters are shown escaped. The table needs no JavaScript; the script adds
filters, and the pages allow only the site's own script and stylesheet (a Content Security
Policy). The same certificates always give the same bytes: nothing depends on the clock, the
order the files were given in, or the machine.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from subagent_tck.spec import ErrorCode, TckError

from ..core.jsonsafe import plain
from ..core.untrusted import for_terminal, json_surrogates
from .matrix_badge import badge
from .matrix_model import Column, Line, Matrix

TEMPLATES = Path(__file__).resolve().parent / "matrix_templates"
ASSETS = ("matrix.css", "matrix.js")
#: Characters of an expected or observed value a page shows (the certificate has them all).
SHOWN_VALUE = 4000
#: The folders the site owns: files of its kind there that it no longer writes are removed.
OWNED = {"targets": ".html", "badges": ".svg"}


class Multiline(str):
    """Text whose line breaks the page keeps (a ``<pre>``): the rest is neutralised as usual."""


def _finalize(value: Any) -> Any:
    if isinstance(value, Markup):
        return value  # the site's own markup (a chart rendered by this environment)
    if isinstance(value, Multiline):
        return for_terminal(value, keep_newlines=True)
    return for_terminal(value) if isinstance(value, str) else value


def _pretty(value: Any) -> Multiline:
    text = json.dumps(plain(value), indent=2, ensure_ascii=False, sort_keys=True)
    if len(text) > SHOWN_VALUE:
        text = text[:SHOWN_VALUE] + f"\n… ({len(text)} characters: the certificate has them all)"
    return Multiline(text)


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True,
                      undefined=StrictUndefined, finalize=_finalize, keep_trailing_newline=True,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pretty"] = _pretty
    env.filters["multiline"] = Multiline
    return env


@dataclass(frozen=True)
class _Series:
    name: str
    points: str
    marks: list[tuple[float, float, int]]


@dataclass(frozen=True)
class _Chart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    scale: int
    changes: list[float]
    labels: list[tuple[float, str]]
    series: list[_Series]


def _chart(line: Line) -> _Chart:
    """Passed, failing and fail-open rules per version; the catalogue's changes as lines."""
    step, left, top, bottom = 90, 40, 14, 130
    right = left + step * max(len(line.points) - 1, 1)
    scale = max(max((p.passed + p.failed + p.expected_fail for p in line.points), default=1), 1)
    xs = [left + step * i for i in range(len(line.points))]

    def series(name: str, values: list[int]) -> _Series:
        marks = [(float(x), round(bottom - (bottom - top) * v / scale, 1), v)
                 for x, v in zip(xs, values, strict=True)]
        return _Series(name, " ".join(f"{x},{y}" for x, y, _ in marks), marks)

    return _Chart(
        width=right + 80, height=bottom + 20, left=left, right=right, top=top, bottom=bottom,
        scale=scale, changes=[x - step / 2 for x, p in zip(xs, line.points, strict=True)
                              if p.catalogue_changed],
        labels=[(float(x), p.version) for x, p in zip(xs, line.points, strict=True)],
        series=[series("passed", [p.passed for p in line.points]),
                series("failing", [p.failed + p.expected_fail for p in line.points]),
                series("fail-open", [p.fail_open for p in line.points])])


def render_json(matrix: Matrix) -> str:
    """``matrix.json``: the matrix, in the shape of ``matrix.schema.json``."""
    text = json.dumps(plain(matrix.model_dump(mode="json")), indent=2, ensure_ascii=False)
    return json_surrogates(text) + "\n"


def pages(matrix: Matrix) -> dict[str, str]:
    """Every file of the site, by its path relative to the site's folder."""
    env = environment()
    columns = {c.id: c for c in matrix.columns}
    newest = {line.id: columns[line.columns[-1]] for line in matrix.lines}
    # a line's badge is its newest version's: shown beside that column only
    badges = {newest[line.id].id: line.badge for line in matrix.lines}
    implementations = list(dict.fromkeys(c.implementation for c in matrix.columns))
    groups = [{"implementation": name,
               "columns": [c for c in matrix.columns if c.implementation == name]}
              for name in implementations]
    common: dict[str, Any] = {
        "matrix": matrix, "columns": columns,
        "guide_href": posixpath.join(posixpath.dirname(matrix.rules_href), "matrix.md"),
    }
    out: dict[str, str] = {}
    out["index.html"] = env.get_template("index.html.j2").render(
        common, root="", badges=badges, implementations=implementations, groups=groups,
        families=list(dict.fromkeys(r.family for r in matrix.rows)),
        capabilities=sorted({r.capability for r in matrix.rows if r.capability}),
        editions=sorted({c.edition for c in matrix.columns}))
    for column in matrix.columns:
        cells = [(row, next(c for c in row.cells if c.column == column.id))
                 for row in matrix.rows]
        out[column.page] = env.get_template("target.html.j2").render(
            common, root="../", column=column, cells=cells, badge=badges.get(column.id))
    trends = [line for line in matrix.lines if line.points]
    chart = env.get_template("chart.svg.j2")
    charts = {line.id: Markup(chart.render(c=_chart(line))) for line in trends}
    out["trend.html"] = env.get_template("trend.html.j2").render(
        common, root="", trends=trends, charts=charts)
    template = env.get_template("badge.svg.j2")
    for line in matrix.lines:
        last: Column = newest[line.id]
        out[line.badge] = template.render(b=badge(line.edition, last.verdict, last.passed,
                                                  last.fail_open, last.catalogue_hash))
    for asset in ASSETS:
        out[asset] = (TEMPLATES / asset).read_text(encoding="utf-8")
    out["matrix.json"] = render_json(matrix)
    return out


def write_site(matrix: Matrix, directory: Path) -> list[str]:
    """Write the site into ``directory`` (created if needed); files of the site's own kind in
    the folders it owns that it no longer writes are removed. Returns the paths written."""
    if directory.exists() and not directory.is_dir():
        raise TckError(ErrorCode.USAGE, f"-o {str(directory)!r} is a file: give a folder for "
                       "the site")
    files = pages(matrix)
    for folder, suffix in OWNED.items():
        for old in sorted((directory / folder).glob(f"*{suffix}")):
            if f"{folder}/{old.name}" not in files:
                old.unlink()
    for name, text in sorted(files.items()):
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    return sorted(files)

