"""docs/matrix/ is the site its stored certificates make (docs/matrix.md#making-it): fail while
it is stale. Cheap: it reads the certificates and renders, no runtime runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from .matrix_certificates import make_matrix

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
