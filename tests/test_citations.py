"""Comments and docstrings cite what is in this repository: ``docs/architecture.md``,
``docs/rules.md#RULE-ID`` and the other pages of docs/, never a file outside it (``RULES.md``,
``DESIGN.md``, a design "seed", an absolute path) nor an issue number (docs/architecture.md,
"Citations"). A cited rule id must exist in the catalogue and a cited page in docs/.

Data is not read: a rule's provenance in spec/catalogue is a string the catalogue carries, not a
citation of the code's.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from subagent_tck.spec import RULES_BY_ID

ROOT = Path(__file__).parents[1]
FOLDERS = ("spec", "reference", "conformance", "fuzz", "tests", "benchmarks", "examples",
           "entry", "tools")
OUTSIDE = [
    (re.compile(r"\bRULES\.md\b"), "RULES.md is not in this repository: cite docs/rules.md#ID"),
    (re.compile(r"\bDESIGN\.md\b"),
     "DESIGN.md is not in this repository: cite docs/architecture.md"),
    (re.compile(r"\bseeds? 0\d\d\b"), "a design seed is not in this repository: cite docs/"),
    (re.compile(r"(?<![\w.:])/(?:work|home|root|Users|mnt)/\w"),
     "an absolute path: cite a path relative to the repository"),
    (re.compile(r"\b[Ii]ssues? #?\d+\b"), "an issue number: say what the code does instead"),
]
RULE_ANCHOR = re.compile(r"docs/rules\.md#([A-Za-z]{2}-\d{2})\b")
PAGE = re.compile(r"\bdocs/([\w-]+\.(?:md|json))")
IDS = {rule_id.lower() for rule_id in RULES_BY_ID}


def commentary(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring of a Python source."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                for offset, line in enumerate(body[0].value.value.split("\n")):
                    yield body[0].lineno + offset, line


def problems_of(source: str, relpath: str) -> list[str]:
    found = []
    for line, text in commentary(source):
        where = f"{relpath}:{line}"
        for pattern, why in OUTSIDE:
            if pattern.search(text):
                found.append(f"{where}: {why}: {text.strip()[:90]}")
        for rule_id in RULE_ANCHOR.findall(text):
            if rule_id.lower() not in IDS:
                found.append(f"{where}: docs/rules.md#{rule_id} names no rule of the catalogue")
        for page in PAGE.findall(text):
            if not (ROOT / "docs" / page).exists():
                found.append(f"{where}: docs/{page} does not exist")
    return found


def sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")
                  if p.name != Path(__file__).name and ".venv" not in p.parts)


def test_comments_and_docstrings_cite_only_what_the_repository_holds() -> None:
    found = [message for path in sources()
             for message in problems_of(path.read_text(encoding="utf-8"),
                                        path.relative_to(ROOT).as_posix())]
    assert not found, f"{len(found)} citations to fix:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("# as RULES.md says\nx = 1\n", "RULES.md is not in this repository"),
        ('"""See DESIGN.md, "No hang"."""\n', "DESIGN.md is not in this repository"),
        ("def f():\n    \"\"\"From seed 002.\"\"\"\n", "design seed"),
        ("x = 1  # read /work/main/spec/x.py\n", "absolute path"),
        ("# fixed for issue 12\n", "issue number"),
        ("# decided here (docs/rules.md#ZZ-99)\n", "names no rule"),
        ("# docs/nowhere.md says so\n", "does not exist"),
    ],
)
def test_a_citation_of_what_is_not_here_is_reported(source: str, says: str) -> None:
    found = problems_of(source, "spec/x.py")
    assert len(found) == 1 and found[0].startswith("spec/x.py:") and says in found[0], found


def test_citations_of_the_repositorys_pages_and_rules_pass() -> None:
    some_id = next(iter(RULES_BY_ID)).lower()
    source = (f'"""See docs/architecture.md and docs/rules.md#{some_id}."""\n'
              'RULES = "RULES.md"  # data, not a citation: docs/certify.md#outputs\n')
    assert problems_of(source, "conformance/x.py") == []


def _outside_in(text: str) -> list[str]:
    return [why for pattern, why in OUTSIDE[:3] if pattern.search(text)]


def test_the_docs_and_the_javascript_sources_cite_only_what_a_reader_can_open() -> None:
    """docs/ (docs/rules.md among them, rendered from spec/) and the JavaScript code name no
    file outside the repository: their sources are the public documents by title and version
    and the rules by their anchors."""
    found = []
    files = [*sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "implementations").rglob("*.md")),
             *(p for p in sorted((ROOT / "implementations").rglob("*.mjs"))
               if "node_modules" not in p.parts),
             *(p for p in sorted((ROOT / "adapters").rglob("*.mjs"))
               if "node_modules" not in p.parts)]
    for path in files:
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            found += [f"{path.relative_to(ROOT)}:{number}: {why}" for why in _outside_in(line)]
    assert not found, "\n".join(found)


def test_the_outside_file_finder_finds_a_design_seed_and_the_catalogue_requirement() -> None:
    assert _outside_in("Source: seed 000 (design note)")
    assert _outside_in("as RULES.md says")
    assert not _outside_in("Source: DSH's design note (DSH 0.1.x), docs/rules.md#tf-01")
