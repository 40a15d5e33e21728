"""docs/matrix/ is the site its stored certificates make (docs/matrix.md#making-it): fail while
it is stale. Cheap: it reads the certificates and renders, no runtime runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from .matrix_certificates import make_matrix, tool

MAKE = make_matrix()


def test_docs_matrix_is_fresh_against_its_stored_certificates() -> None:
    problems = MAKE.stale()
    assert not problems, ("docs/matrix/ is stale (its certificates or the matrix's rendering "
                          "changed): run `python tools/make_matrix.py` and commit the result:\n"
                          + "\n".join(problems))


def test_the_stored_certificates_are_the_repositorys_own_targets_and_the_screenshot_is_there(
) -> None:
    names = {path.stem for path in MAKE.stored()}
    assert {"reference-preset-composition", "javascript", "dsh-request-controls",
            "dsh-preset-composition"} <= names
    assert MAKE.SCREENSHOT.is_file(), "run `python tools/make_matrix.py --screenshot`"


def test_a_stale_page_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "matrix"
    monkeypatch.setattr(MAKE, "DOCS", docs)  # the stored certificates, another site folder
    MAKE.rebuild()
    assert MAKE.stale() == []
    (docs / "index.html").write_text("old", encoding="utf-8")
    (docs / "targets" / "gone.html").write_text("old", encoding="utf-8")
    badge = sorted((docs / "badges").iterdir())[0]
    badge.unlink()
    problems = MAKE.stale()
    assert "index.html differs" in problems
    assert "targets/gone.html is not made from the certificates" in problems
    assert f"badges/{badge.name} is missing" in problems


def test_the_claude_code_trend_table_is_fresh_against_the_stored_certificates() -> None:
    trend = tool("claude_code_trend")
    assert trend.main(["--check"]) == 0, (
        "docs/claude-code.md#trend is stale: run `python tools/claude_code_trend.py` and commit")


def test_a_stale_trend_table_is_named_and_a_row_per_stored_version_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    trend = tool("claude_code_trend")
    page = tmp_path / "claude-code.md"
    text = trend.PAGE.read_text(encoding="utf-8")
    page.write_text(text.replace(trend.END, "| 9.9.9 | CERTIFIED |\n" + trend.END),
                    encoding="utf-8")
    monkeypatch.setattr(trend, "PAGE", page)
    assert trend.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().out
    rows = [line for line in trend.table().splitlines() if line.startswith("| 2.")]
    versions = [version for version, _ in trend.certificates()]
    assert [row.split(" | ")[0][2:] for row in rows] == versions
    assert versions == sorted(versions, key=lambda v: tuple(int(p) for p in v.split(".")))
    assert rows[0].endswith("(first row) |")
    assert all("assertions:" in row for row in rows[1:])
