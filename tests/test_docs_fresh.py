"""docs/rules.md is the rendered catalogue (docs/architecture.md): fail while it is stale."""

from __future__ import annotations

from pathlib import Path

from subagent_tck.spec.render import REGENERATE, docs_markdown

DOCS = Path(__file__).parents[1] / "docs" / "rules.md"


def test_docs_rules_md_is_the_rendered_catalogue() -> None:
    assert DOCS.exists(), f"docs/rules.md is missing: create it with `{REGENERATE}`"
    written = DOCS.read_text(encoding="utf-8")
    assert written == docs_markdown(), (
        "docs/rules.md is stale (the catalogue or its rendering changed): regenerate it from the "
        f"project root with `{REGENERATE}` and commit the result"
    )
