"""The mutants cosmic-ray makes in reference/ for benchmarks/mutation.py, and the sample drawn.

cosmic-ray's core operators enumerate every mutant of the modules of reference/ (the very files
the editable install maps to ``subagent_tck.reference``); each is told apart by where it sits (on
a line where the reference calls an oracle function of ``subagent_tck.spec`` or acts on its
verdict, inside a type annotation that is never evaluated), and a seeded sample is drawn of those
that still compile. See benchmarks/README.md.
"""

from __future__ import annotations

import ast
import fnmatch
import inspect
import random
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"


class SetupError(Exception):
    """The benchmark cannot give a trustworthy figure (dirty tree, broken baseline...)."""


@dataclass
class Mutant:
    id: str  # module:operator:occurrence, stable for one version of the code
    module: str  # path relative to the repository
    operator: str
    occurrence: int
    line: int
    oracle_call: bool  # on a line that calls a subagent_tck.spec function or uses its verdict
    annotation: bool = False  # inside a type annotation (never evaluated, see below)


# -- the mutants ---------------------------------------------------------------------------------

def reference_modules(globs: Sequence[str]) -> list[Path]:
    files = sorted(REFERENCE.glob("*.py"))
    if globs:
        files = [f for f in files if any(fnmatch.fnmatch(f.name, g) or
                                         fnmatch.fnmatch(str(f.relative_to(ROOT)), g)
                                         for g in globs)]
    if not files:
        raise SetupError(f"no module of reference/ matches {list(globs)}: use a name like "
                         "'scope.py' or a glob like 'reference/s*.py'")
    return files


def oracle_functions() -> set[str]:
    """The names subagent_tck.spec exports that are functions (the oracle's decisions)."""
    import subagent_tck.spec as spec

    return {name for name in dir(spec) if inspect.isfunction(getattr(spec, name))}


def _calls(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
               for n in ast.walk(node))


def _simple_lines(node: ast.AST) -> Iterator[tuple[ast.AST, int, int]]:
    """(node, first line, last line) of the simple statements and compound-statement headers
    (an ``if``/``while`` test, a ``for`` iterable, a ``with`` item) under ``node``."""
    for n in ast.walk(node):
        if isinstance(n, ast.If | ast.While):
            yield n.test, n.test.lineno, n.test.end_lineno or n.test.lineno
        elif isinstance(n, ast.For | ast.AsyncFor):
            yield n.iter, n.iter.lineno, n.iter.end_lineno or n.iter.lineno
        elif isinstance(n, ast.stmt) and not isinstance(
                n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.If | ast.While
                | ast.For | ast.AsyncFor | ast.With | ast.AsyncWith | ast.Try):
            yield n, n.lineno, n.end_lineno or n.lineno


def oracle_call_lines(path: Path, oracles: set[str]) -> set[int]:
    """Lines of ``path`` where the reference calls an oracle function imported from spec, or
    acts on what one returned (``verdict = check_depth(v)`` and then ``if verdict.value is
    None``): the decision is the oracle's, the call and its use the reference's own code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("subagent_tck.spec"):
            imported |= {a.asname or a.name for a in node.names if a.name in oracles}
    lines: set[int] = set()
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        verdicts = {t.id for n in ast.walk(func) if isinstance(n, ast.Assign | ast.AnnAssign)
                    and n.value is not None and _calls(n.value, imported)
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                    if isinstance(t, ast.Name)}
        for node, first, last in _simple_lines(func):
            uses = any(isinstance(n, ast.Name) and n.id in verdicts for n in ast.walk(node))
            if _calls(node, imported) or uses:
                lines.update(range(first, last + 1))
    return lines


def annotation_spans(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions of every annotation in ``path``. Every module of reference/ has
    ``from __future__ import annotations`` and nothing there resolves type hints, so a mutant
    inside one (``str | None`` made ``str - None``) is never evaluated: equivalent by
    construction, left out unless --annotations."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            nodes.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            nodes.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            nodes.append(node.annotation)
    return [((n.lineno, n.col_offset), (n.end_lineno or n.lineno, n.end_col_offset or 0))
            for n in nodes]


def oracle_sites(files: Sequence[Path]) -> dict[str, list[int]]:
    """Lines of each module of ``files`` whose statement calls a subagent_tck.spec function."""
    oracles = oracle_functions()
    found = {}
    for f in files:
        lines = sorted(oracle_call_lines(f, oracles))
        if lines:
            found[f.name] = lines
    return found


def enumerate_mutants(files: Sequence[Path]) -> list[Mutant]:
    """Every mutant cosmic-ray's core operators make in ``files`` (its own ``init``)."""
    import cosmic_ray.commands
    from cosmic_ray.work_db import WorkDB, use_db

    oracles = oracle_functions()
    call_lines = {f: oracle_call_lines(f, oracles) for f in files}
    annotations = {f: annotation_spans(f) for f in files}
    with tempfile.TemporaryDirectory(prefix="tck-mutation-") as tmp, \
            use_db(str(Path(tmp) / "session.sqlite"), WorkDB.Mode.create) as db:
        cosmic_ray.commands.init([Path(f) for f in files], db, {})
        specs = [m for item in db.work_items for m in item.mutations]
    mutants = []
    for spec in specs:
        path = Path(spec.module_path)
        rel = str(path.relative_to(ROOT))
        line = spec.start_pos[0]
        start = tuple(spec.start_pos)
        in_annotation = any(a <= start < b for a, b in annotations[path])
        mutants.append(Mutant(f"{rel}:{spec.operator_name}:{spec.occurrence}", rel,
                              spec.operator_name, spec.occurrence, line,
                              line in call_lines[path], in_annotation))
    return sorted(mutants, key=lambda m: (m.module, m.operator, m.occurrence))


def compiles(mutant: Mutant, sources: dict[str, str]) -> bool:
    """Whether the mutated module is still Python: cosmic-ray also turns the ``*`` of a
    keyword-only marker or a ``**kwargs`` into other operators, a syntax error that any test
    "kills". Such mutants are incompetent and never drawn."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    source = sources.setdefault(mutant.module, (ROOT / mutant.module).read_text("utf-8"))
    code = mutate_code(source, cosmic_ray.plugins.get_operator(mutant.operator)(),
                       mutant.occurrence)
    if code is None:
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `x is "lit"` warns; it is still a mutant
            compile(code, mutant.module, "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


def draw(population: list[Mutant], n: int, seed: int) -> tuple[list[Mutant], int]:
    """``n`` competent mutants in a seeded random order, and how many incompetent were passed."""
    order = sorted(population, key=lambda m: m.id)
    random.Random(seed).shuffle(order)
    sources: dict[str, str] = {}
    chosen: list[Mutant] = []
    skipped = 0
    for mutant in order:
        if len(chosen) == n:
            break
        if compiles(mutant, sources):
            chosen.append(mutant)
        else:
            skipped += 1
    return sorted(chosen, key=lambda m: m.id), skipped
