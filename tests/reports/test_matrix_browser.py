"""The matrix in a real browser (docs/matrix.md#tested-in-a-browser): Playwright drives Debian's
chromium (``tools/make_matrix.py`` launches it: no browser download) over the site built from
the certificates the repository stores and one whose target's name carries script, opened from
disk (file://). Slow (a browser): tests/conftest.py runs it once."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from subagent_tck.conformance.report.matrix_model import build
from subagent_tck.conformance.report.matrix_read import read_certificate
from subagent_tck.conformance.report.matrix_site import write_site

from .matrix_certificates import STORED, certificate, failing, make_matrix, write

SCRIPTED = ('<script>window.__pwned = 1; alert(1)</script>'
            '<img src="x" onerror="window.__pwned = 2; alert(2)">')
MAKE = make_matrix()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("matrix")
    hostile = write(folder / "hostile.json", certificate(SCRIPTED, "6.6.6"))
    # one runtime at two versions, the older under an older catalogue without ST-09
    old = certificate("trendy", "1.9", catalogue_hash="0" * 64)
    old["rules"] = [r for r in old["rules"] if r["id"] != "ST-09"]
    new = failing(certificate("trendy", "1.10"), "TF-01", [["a", "global"]],
                  [["a", "global"], ["b", "global"]])
    trend = [write(folder / f"trendy-{i}.json", d) for i, d in enumerate((old, new))]
    sources = [read_certificate(p) for p in [*sorted(STORED.glob("*.json")), hostile, *trend]]
    out = folder / "site"
    write_site(build(sources), out)
    return out, json.loads((out / "matrix.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with MAKE.browser() as context:
        yield context


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    page.dialogs = []  # every dialog the page opened (none may)
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    page.close()


def open_index(page: Any, site: Path, fragment: str = "") -> None:
    page.goto((site / "index.html").as_uri() + fragment)
    page.wait_for_selector("#filters:not([hidden])")


SHOWN_ROWS = "#matrix tbody tr:not(.hidden-by-filter)"
SHOWN_COLUMNS = "#matrix thead th[data-column]:not(.hidden-by-filter)"


def test_every_cell_shows_what_matrix_json_says(page: Any, site: tuple[Path, Any]) -> None:
    folder, matrix = site
    open_index(page, folder)
    shown = page.eval_on_selector_all("#matrix tbody tr", """rows => rows.map(row => [
        row.dataset.rule, Array.from(row.querySelectorAll('td')).map(td => [
            td.dataset.column, td.dataset.outcome, td.dataset.direction,
            td.querySelector('a').getAttribute('href'), td.innerText.trim()])])""")
    wanted = [[row["rule"], [[c["column"], c["outcome"], c["direction"] or "", c["href"]]
                             for c in row["cells"]]] for row in matrix["rows"]]
    assert [[rule, [cell[:4] for cell in cells]] for rule, cells in shown] == wanted
    labels = {cell[4] for _, cells in shown for cell in cells}
    assert {"pass", "n/a", "xfail open", "xfail closed"} <= labels
    heads = page.eval_on_selector_all("#matrix thead th[data-column]", """ths => ths.map(th =>
        [th.dataset.column, th.querySelector('.counts').innerText])""")
    assert [h[0] for h in heads] == [c["id"] for c in matrix["columns"]]
    for (_, counts), column in zip(heads, matrix["columns"], strict=True):
        assert counts == (f"{column['passed']} pass · {column['fail_open']} open · "
                          f"{column['fail_closed']} closed")
    assert page.errors == []


def test_the_filters_narrow_rows_and_columns_and_live_in_the_address(
        page: Any, site: tuple[Path, Any]) -> None:
    folder, matrix = site
    open_index(page, folder)
    page.select_option("select[name=capability]", "toolFilter")
    rows = page.eval_on_selector_all(SHOWN_ROWS, "rows => rows.map(r => r.dataset.rule)")
    assert rows == [r["rule"] for r in matrix["rows"] if r["capability"] == "toolFilter"]
    page.select_option("select[name=edition]", "request-controls")
    columns = page.eval_on_selector_all(SHOWN_COLUMNS, "ths => ths.map(t => t.dataset.column)")
    assert columns == [c["id"] for c in matrix["columns"] if c["edition"] == "request-controls"]
    assert page.locator("#matrix tbody td:not(.hidden-by-filter)").count() == \
        page.locator("#matrix tbody td").count() // len(matrix["columns"]) * len(columns)
    page.select_option("select[name=capability]", "")
    page.select_option("select[name=family]", "EN")
    rows = page.eval_on_selector_all(SHOWN_ROWS, "rows => rows.map(r => r.dataset.rule)")
    assert rows == [r["rule"] for r in matrix["rows"] if r["family"] == "EN"
                    and r["edition"] in (None, "request-controls")]
    assert "family=EN" in page.url and "edition=request-controls" in page.url
    page.reload()  # the fragment brings the same view back
    page.wait_for_selector("#filters:not([hidden])")
    assert page.eval_on_selector_all(SHOWN_ROWS, "rows => rows.map(r => r.dataset.rule)") == rows
    page.select_option("select[name=family]", "")
    page.select_option("select[name=edition]", "")
    page.check("input[name=failing]")
    failing = page.eval_on_selector_all(SHOWN_ROWS, "rows => rows.map(r => r.dataset.rule)")
    assert failing == [r["rule"] for r in matrix["rows"] if any(
        c["outcome"] in ("fail", "expected-fail", "error", "unexpected-pass")
        for c in r["cells"])]
    assert page.inner_text("output[name=shown]") == \
        f"{len(failing)} of {len(matrix['rows'])} rules"
    assert page.errors == []


def test_a_cell_leads_to_its_failing_assertions_and_their_replay_commands(
        page: Any, site: tuple[Path, Any]) -> None:
    folder, matrix = site
    open_index(page, folder)
    # a baselined failure of a real runtime: its certificate has no replay, the matrix makes one
    row, cell = next((r, c) for r in matrix["rows"] for c in r["cells"]
                     if c["outcome"] == "expected-fail" and c["column"].startswith("dsh"))
    page.click(f'tr[data-rule="{row["rule"]}"] td[data-column="{cell["column"]}"] a')
    page.wait_for_url(f"**/{cell['href']}")
    section = page.locator(f"section#{row['rule'].lower()}")
    assert section.evaluate("s => s.matches(':target')")
    replays = section.locator("code.replay").all_inner_texts()
    assert replays[-1] == cell["replay"] and cell["replay"].startswith("subagent-tck certify ")
    assert f"--rule {row['rule']} --seed 0" in cell["replay"]
    assert replays[:-1] == [a["replay"] for a in cell["assertions"] if a["replay"]]
    assert section.locator(".outcome").get_attribute("data-outcome") == cell["outcome"]
    shown = section.locator("li.assertion").count()
    assert shown == len(cell["assertions"])
    column = next(c for c in matrix["columns"] if c["id"] == cell["column"])
    assert column["certificate"]["sha256"] in page.inner_text("dl.facts")
    rules = section.locator("h2 a").evaluate("a => a.href")  # the rule in the catalogue
    assert rules == (folder.parent / "rules.md").as_uri() + f"#{row['rule'].lower()}"


def test_script_in_a_target_name_renders_as_text(page: Any, site: tuple[Path, Any]) -> None:
    folder, matrix = site
    column = next(c for c in matrix["columns"] if c["implementation"] == SCRIPTED)
    for where in ("index.html", column["page"], "trend.html"):
        page.goto((folder / where).as_uri())
        page.wait_for_load_state("load")
        assert page.evaluate("() => window.__pwned") is None
        assert page.evaluate("() => document.querySelectorAll('script:not([src])').length") == 0
        assert page.locator('img[src="x"]').count() == 0
        assert page.locator("script").count() <= 1
    page.goto((folder / column["page"]).as_uri())
    assert page.locator("h1").inner_text() == f"{SCRIPTED} 6.6.6 (preset-composition)"
    open_index(page, folder)
    assert SCRIPTED in page.inner_text("table.summary")
    assert page.dialogs == [] and page.errors == []


def test_the_trend_marks_the_catalogue_change_and_tells_a_new_rule_from_a_regression(
        page: Any, site: tuple[Path, Any]) -> None:
    folder, matrix = site
    # the test's own runtime at two versions (the stored Claude Code versions draw a trend too)
    (line,) = [line for line in matrix["lines"] if line["points"] and "trendy" in line["id"]]
    page.goto((folder / "trend.html").as_uri())
    section = page.locator(f"section#{line['id']}")
    assert section.locator("table.points thead th").all_inner_texts()[1:] == ["1.9", "1.10"]
    assert section.locator("svg.chart line.catalogue-change").count() == 1
    kinds = dict(zip(section.locator("table.changes td:nth-child(1)").all_inner_texts(),
                     section.locator("table.changes td:nth-child(5)").all_inner_texts(),
                     strict=True))
    assert kinds == {"TF-01": "catalogue-changed", "ST-09": "new-rule"}
    assert "new: ST-09" in section.locator("table.points").inner_text()


def test_the_table_is_read_whole_with_javascript_off(browser: Any,
                                                     site: tuple[Path, Any]) -> None:
    folder, matrix = site
    page = browser.new_page()
    try:
        cdp = browser.new_cdp_session(page)
        cdp.send("Emulation.setScriptExecutionDisabled", {"value": True})
        page.goto((folder / "index.html").as_uri())
        assert page.locator("#filters").is_hidden()
        assert page.locator("#matrix tbody tr").count() == len(matrix["rows"])
        assert page.locator("#matrix tbody td:visible").count() == \
            len(matrix["rows"]) * len(matrix["columns"])
    finally:
        page.close()


def test_a_screenshot_of_the_first_screen_is_taken(browser: Any, site: tuple[Path, Any],
                                                   tmp_path: Path) -> None:
    folder, _ = site
    shot = tmp_path / "screenshot.png"
    MAKE.screenshot(folder, shot, browser)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (MAKE.VIEWPORT["width"], MAKE.VIEWPORT["height"])
