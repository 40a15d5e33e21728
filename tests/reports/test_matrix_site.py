"""The matrix site shows what a target supplied as text (docs/matrix.md): a certificate whose
every target-supplied string carries the hostile pieces of the report tests
(tests/reports/hostile_target.py: script, closing tags, control and bidi characters, a lone
surrogate) gives pages with no markup but the site's own, SVG badges that parse, and a
``matrix.json`` that keeps every code point. The table is whole in the HTML itself: the script
only filters."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from subagent_tck.conformance.report.matrix_badge import GREEN, GREY, RED, YELLOW, badge, text_width
from subagent_tck.conformance.report.matrix_model import Matrix, build
from subagent_tck.conformance.report.matrix_read import read_certificate
from subagent_tck.conformance.report.matrix_site import pages

from .hostile_target import HOSTILE, PIECES
from .matrix_certificates import certificate, failing, rule, write

#: What no page may carry raw: C0 but tab and newline, DEL, C1, bidi, surrogates.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                         "\u2066-\u2069\ud800-\udfff]")
SITE_TAGS = {"html", "head", "meta", "title", "link", "body", "header", "nav", "a", "main",
             "footer", "script", "h1", "h2", "p", "table", "caption", "thead", "tbody", "tr",
             "th", "td", "img", "form", "label", "select", "option", "input", "output",
             "div", "section", "dl", "dt", "dd", "em", "span", "br", "code", "strong", "ul",
             "li", "ol", "details", "summary", "pre", "svg", "line", "text", "polyline",
             "circle"}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(files: dict[str, str]) -> dict[str, Tags]:
    """Each HTML page of the site, parsed."""
    out = {}
    for name, text in files.items():
        if name.endswith(".html"):
            out[name] = Tags()
            out[name].feed(text)
    return out


def hostile_certificate() -> dict[str, Any]:
    document = certificate("evil" + HOSTILE, "1" + HOSTILE, baseline="b" + HOSTILE)
    document["target"]["spec"] = "cmd:" + HOSTILE
    document = failing(document, "TF-01", [["alpha", "global"]],
                       [["alpha", "global"], ["tool" + HOSTILE, "global"]],
                       reason="because " + HOSTILE)
    entry = rule(document, "TF-01")
    entry["failures"][0].update(message="broke " + HOSTILE, check="check" + HOSTILE,
                                provider="spawn" + HOSTILE, example="steps\n" + HOSTILE,
                                replay="replay " + HOSTILE)
    entry["replay"] = "rule replay " + HOSTILE
    document = failing(document, "TF-02", [], [], outcome="expected-fail",
                       reason="listed " + HOSTILE)
    rule(document, "PE-01")["outcome"] = "not-applicable"
    rule(document, "PE-01")["providers"][0]["reason"] = "n/a " + HOSTILE
    document["verdicts"][0]["provider"] = "p" + HOSTILE
    document["verdicts"][0]["blocking"] = ["TF-01 fail" + HOSTILE]
    return document


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Matrix, dict[str, str]]:
    path = write(tmp_path_factory.mktemp("hostile") / "evil.json", hostile_certificate())
    matrix = build([read_certificate(path)])
    return matrix, pages(matrix)


def test_no_page_carries_markup_but_the_sites_own(site: tuple[Matrix, dict[str, str]]) -> None:
    _, files = site
    for name, parser in parsed(files).items():
        tags = {tag for tag, _ in parser.tags}
        assert tags <= SITE_TAGS, (name, tags - SITE_TAGS)
        scripts = [attrs for tag, attrs in parser.tags if tag == "script"]
        assert scripts in ([], [{"src": "matrix.js"}]), (name, scripts)
        for tag, attrs in parser.tags:
            assert not any(key.startswith("on") for key in attrs), (name, tag, attrs)
            assert not (attrs.get("href") or "").startswith("javascript:"), (name, attrs)
            if tag == "img":
                assert (attrs.get("src") or "").endswith(".svg"), (name, attrs)
        assert not RAW_CONTROL.search(files[name]), (name, RAW_CONTROL.search(files[name]))


def test_the_hostile_text_is_shown_as_text(site: tuple[Matrix, dict[str, str]]) -> None:
    matrix, files = site
    page = files[matrix.columns[0].page]
    parser = Tags()
    parser.feed(page)
    shown = "".join(parser.text)
    for piece in ("</details><script>alert(1)</script>", "[x](javascript:alert(1))", "a|b",
                  "<!--"):
        assert piece in shown, piece  # as text, not as markup
    assert "\\u202eevil\\u202c" in shown and "\\x1b[2J" in shown  # shown escaped
    for where in ("broke ", "listed ", "n/a ", "replay ", "rule replay "):
        assert where + "\\x1b" in shown, where


def test_badges_parse_as_svg_and_carry_no_script(site: tuple[Matrix, dict[str, str]]) -> None:
    _, files = site
    badges = [name for name in files if name.endswith(".svg")]
    assert badges
    for name in badges:
        root = ET.fromstring(files[name])
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert not [e for e in root.iter() if e.tag.endswith("script")]


def test_matrix_json_keeps_every_code_point_the_target_sent(
        site: tuple[Matrix, dict[str, str]]) -> None:
    _, files = site
    document = json.loads(files["matrix.json"])
    assert document["columns"][0]["implementation"] == "evil" + HOSTILE
    assert files["matrix.json"].count("\\udc80") >= 1  # the lone surrogate, escaped
    assert PIECES["bidi override"] in document["columns"][0]["version"]


def test_the_table_is_whole_without_javascript(site: tuple[Matrix, dict[str, str]]) -> None:
    matrix, files = site
    parser = Tags()
    parser.feed(files["index.html"])
    cells = [attrs for tag, attrs in parser.tags if tag == "td" and "data-outcome" in attrs]
    assert len(cells) == len(matrix.rows) * len(matrix.columns)
    assert [c["data-outcome"] for c in cells] == [c.outcome for row in matrix.rows
                                                   for c in row.cells]
    (form,) = [attrs for tag, attrs in parser.tags if tag == "form"]
    assert "hidden" in form  # the filters appear only when the script runs
    links = [attrs["href"] for tag, attrs in parser.tags if tag == "a"]
    assert all(c.href in links for row in matrix.rows for c in row.cells)


def test_the_site_links_only_within_itself_and_to_the_rules(
        site: tuple[Matrix, dict[str, str]]) -> None:
    matrix, files = site
    for name, parser in parsed(files).items():
        for tag, attrs in parser.tags:
            link = attrs.get("href") or attrs.get("src")
            if tag not in ("a", "link", "script", "img") or link is None:
                continue
            assert "://" not in link, (name, link)
            path = link.split("#")[0]
            if path and not path.endswith(("rules.md", "matrix.md")):
                target = (Path("/site") / name).parent / path
                assert target.resolve().relative_to("/site").as_posix() in files, (name, link)
    assert matrix.rules_href == "../rules.md"


@pytest.mark.parametrize(("verdict", "fail_open", "colour"), [
    ("CERTIFIED", 0, GREEN), ("CERTIFIED", 2, YELLOW), ("FAILED", 0, RED),
    ("NOT-RUN", 0, GREY), ("PASSED", 1, GREY)])
def test_a_badge_is_green_only_when_certified_with_nothing_failing_open(
        verdict: str, fail_open: int, colour: str) -> None:
    drawn = badge("request-controls", verdict, 12, fail_open, "8944f6d616d41a87")
    assert drawn.colour == colour
    assert drawn.message == f"{verdict} | 12 passed | {fail_open} fail-open | catalogue 8944f6d6"
    assert drawn.width == round(drawn.label_box + drawn.message_box, 1) > text_width(verdict)
