"""Every output gets the same hostile strings (tests/reports/hostile_target.py) and none of
them breaks: the terminal shows them escaped, JUnit parses and validates, the Markdown has no
HTML but the kit's own, the JSON is valid, validates and keeps every code point. Each failure
carries its cause: the provider's exception and traceback (docs/certify.md#outputs)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from lxml import etree
from markdown_it import MarkdownIt

from subagent_tck.conformance.cli import main

from . import hostile_target
from .hostile_target import HOSTILE, NAME, PIECES, TOOL

ROOT = Path(__file__).parents[2]
XSD = etree.XMLSchema(etree.parse(str(Path(__file__).with_name("junit-10.xsd"))))
SCHEMA = json.loads((ROOT / "conformance" / "core" / "certificate.schema.json").read_text("utf-8"))
#: What no terminal output may carry raw: ESC, C0 but newline, DEL, C1, bidi, surrogates.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                         "\u2066-\u2069\ud800-\udfff]")
KIT_TAGS = re.compile(r"</?(details|summary|b)>")


@dataclass
class Run:
    code: int
    stdout: str
    files: dict[str, Path]


def certify_hostile(out: Path, formats: tuple[str, ...], *options: str) -> Run:
    """One certification of the hostile target with ``options``, each of ``formats`` written
    to ``out`` at once, its stdout captured."""
    import io
    import sys

    sys.modules["subagent_tck_hostile_target"] = hostile_target
    files = {fmt: out / f"report.{fmt}" for fmt in formats}
    argv = ["certify", "--target", "python:subagent_tck_hostile_target:factory", *options]
    for fmt, path in files.items():
        argv += ["--report", f"{fmt}={path}"]
    capture = pytest.MonkeyPatch()
    stdout = io.StringIO()
    capture.setattr(sys, "stdout", stdout)
    try:
        code = main(argv)
    finally:
        capture.undo()
        sys.modules.pop("subagent_tck_hostile_target", None)
    return Run(code, stdout.getvalue(), files)


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """One certification of the hostile target, every format written at once."""
    yield certify_hostile(tmp_path_factory.mktemp("hostile"),
                          ("json", "junit", "markdown", "text"),
                          "--rule", "FR-01", "--rule", "PE-01")


def _walk(tokens: list[Any]) -> Iterator[Any]:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def test_the_hostile_target_fails_with_exit_1_or_3(hostile_run: Run) -> None:
    assert hostile_run.code in (1, 3)


def test_the_terminal_shows_control_characters_escaped_and_parses_no_markup(
    hostile_run: Run,
) -> None:
    for text in (hostile_run.stdout, hostile_run.files["text"].read_text("utf-8")):
        assert "provider evil" in text and "provider smuggler" in text
        assert not RAW_CONTROL.search(text), RAW_CONTROL.search(text)
        assert "\\x1b[2J" in text and "\\u202e" in text and "\\udc80" in text
        assert "[bold red]styled[/bold red]" in text  # shown as written, not styled


def test_the_junit_file_parses_and_validates_against_the_jenkins_schema(
    hostile_run: Run,
) -> None:
    data = hostile_run.files["junit"].read_bytes()
    assert XSD.validate(etree.fromstring(data)), XSD.error_log
    root = ET.fromstring(data)
    assert int(root.get("failures", "0")) + int(root.get("errors", "0")) >= 1
    bodies = "".join(node.text or "" for node in root.iter("failure"))
    assert "cause: provider evil" in bodies and "provider exploded" in bodies
    assert "Traceback (most recent call last)" in bodies and "hostile_target.py" in bodies
    assert '"tool\\u001b[2J' in bodies  # the smuggled tool, in an observed value


def test_the_markdown_has_no_html_but_the_kits_own_and_no_links(hostile_run: Run) -> None:
    text = hostile_run.files["markdown"].read_text("utf-8")
    tokens = list(_walk(MarkdownIt("commonmark").enable("table").parse(text)))
    html = [t.content for t in tokens if t.type in ("html_inline", "html_block")]
    assert html, "the kit folds failures in <details>"
    for block in html:
        assert "<" not in KIT_TAGS.sub("", block), block
    assert not [t for t in tokens if t.type in ("link_open", "image")]
    rows = [line for line in text.splitlines() if line.startswith(("| evil", "| smuggler"))]
    assert rows and all(len(re.findall(r"(?<!\\)\|", row)) == 5 for row in rows)  # 4 cells
    # the hostile text kept verbatim only inside code blocks, whose fence it cannot close
    fenced = [t.content for t in tokens
              if t.type == "fence" and "provider exploded" in t.content]
    assert fenced and all(PIECES["closing details"] in c and PIECES["backticks"] in c
                          for c in fenced)
    outside = "".join(t.content for t in tokens if t.type == "inline")
    for name in ("closing details", "HTML comment", "javascript link"):
        assert PIECES[name] not in outside, name


def test_the_json_is_valid_validates_and_keeps_every_code_point(hostile_run: Run) -> None:
    raw = hostile_run.files["json"].read_bytes()
    raw.decode("utf-8")  # strict: no raw surrogate reached the file
    document = json.loads(raw)
    jsonschema.validate(document, SCHEMA)
    assert NAME in document["capabilities"]
    failures = [f for r in document["rules"] for f in r["failures"]]
    raising = [f for f in failures if f["provider"] == NAME]
    assert raising and all(HOSTILE in (f["cause"] or "") for f in raising)
    assert all("hostile_target.py" in (f["traceback"] or "") for f in raising)
    assert any(isinstance(f["observed"], list) and TOOL in f["observed"] for f in failures)


class _HostileInfo:
    """A target whose info() fails with a hostile message: the error line shows it escaped."""

    def info(self) -> Any:
        raise ConnectionError("refused " + HOSTILE)

    def close(self) -> None:
        raise RuntimeError("close failed " + HOSTILE)


def test_an_error_line_quoting_the_target_shows_its_control_characters_escaped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    from subagent_tck.conformance.transports import targets

    monkeypatch.setattr(targets, "load_target", lambda spec, **_: _HostileInfo())
    assert main(["certify", "--target", "reference"]) == 3
    err = capsys.readouterr().err
    assert "refused" in err and "close failed" in err
    assert not RAW_CONTROL.search(err.replace("\n", "")), RAW_CONTROL.search(err)
