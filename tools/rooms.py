"""Move ``conformance/`` into its rooms and rewrite every reference to a moved module.

Run from the repository root: ``python tools/rooms.py`` (``git mv`` and rewrites; it prints what
it moved and what it left; ``--dry-run`` only prints).

The rooms and the reasons are in docs/architecture.md ("Rooms"). ``ROOMS`` below is the one
table of which module lives in which room; the import-direction test reads it too.

The script is idempotent: a module already in its room is not moved again and an import that
already names the room is left as it is, so it can be run again after merging branches that
still use the flat layout. A module of ``conformance/`` that ``ROOMS`` does not name is left in
place and listed on stdout: add a row for it and run again.

What it rewrites, in every file git knows of (tracked or untracked, not ignored):

- absolute module names ``subagent_tck.conformance.X`` (imports, ``importlib`` strings,
  monkeypatch targets, ``python -m``, entry points) and ``from subagent_tck.conformance import X``
  where ``X`` is a moved module;
- relative imports in the kit's parts (``spec/``, ``reference/``, ``conformance/``, ``fuzz/``):
  resolved against where the file was, re-expressed from where it now is;
- repository paths ``conformance/X.py``, ``conformance/checks/``, ``../conformance/X.py`` and
  ``"conformance" / "X.schema.json"``;
- pyproject.toml's package list, package directories and package data.

Standard library only. If ``ruff`` is on PATH, the import blocks of the Python files it changed
are sorted again (``ruff check --select I --fix``).
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "subagent_tck.conformance"
TOP = ""  # the front ends stay at the top of conformance/

# module (or package, or data file) of the flat layout -> its room
ROOMS: dict[str, str] = {
    # core: the model every other room speaks (what a target is, what a run found, exit codes,
    # the error style, what the kit trusts). Imports only spec.
    "protocol": "core",
    "target": "core",
    "gateway": "core",
    "outcome": "core",
    "certificate": "core",
    "certificate_assembly": "core",
    "certificate.schema.json": "core",
    "baseline": "core",
    "baseline_judge": "core",
    "baseline_write": "core",
    "certificate_file": "core",
    "fingerprint": "core",
    "diff": "core",
    "exitcode": "core",
    "transport": "core",
    "suggest": "core",
    "untrusted": "core",
    "jsonsafe": "core",
    "clierror": "core",
    "promises_file": "core",
    "promises.schema.json": "core",
    "promises_report": "core",
    "unsupported": "core",
    "dialect": "core",
    "drawn": "core",
    "fail_direction": "core",
    "heap": "core",
    # engine: checks and the runner that plans and runs them; the seed policy; promises.
    "check": "engine",
    "runner": "engine",
    "planning": "engine",
    "scheduling": "engine",
    "verdicts": "engine",
    "events": "engine",
    "jobs": "engine",
    "lanes": "engine",
    "worker": "engine",
    "checks": "engine",
    "seed": "engine",
    "profiles": "engine",
    "promises": "engine",
    "promise_scripts": "engine",
    "promise_judge": "engine",
    "own_tools": "engine",
    "faults": "engine",
    "timings": "engine",
    "variable_names": "engine",
    "partitions": "engine",
    "for_all": "engine",
    # report: the four output formats and the files they are written to.
    "report_files": "report",
    "report_json": "report",
    "report_junit": "report",
    "report_markdown": "report",
    "report_text": "report",
    "report_failure": "report",
    "report_stream": "report",
    "report_promises": "report",
    "report_diff": "report",
    # the matrix: many certificates side by side, as a static site (docs/matrix.md)
    "matrix_read": "report",
    "matrix_model": "report",
    "matrix_badge": "report",
    "matrix_site": "report",
    "matrix_templates": "report",
    "matrix.schema.json": "report",
    # transports: how the kit reaches a target (built-in, HTTP client and server, cmd:).
    "builtin": "transports",
    "builtin_wire": "transports",
    "targets": "transports",
    "launcher": "transports",
    "processes": "transports",
    "http_target": "transports",
    "http_server": "transports",
    "gateway_anthropic": "transports",
    "httpd": "transports",
    "connections": "transports",
    "loopback": "transports",
    "busypoll": "transports",
    "codec": "transports",
    "wire": "transports",
    "gateway_server": "transports",
    "gateway_chat": "transports",
    "gateway_chat_stream": "transports",
    "gateway_responses": "transports",
    "openapi": "transports",
    "mcp_echo": "transports",
    "traffic": "transports",
    "traffic_routes": "transports",
    "traffic_starts": "transports",
    "traffic_refusals": "transports",
    "traffic_servers": "transports",
    "traffic_delegation": "transports",
    "tool_names": "transports",
    "traffic_chat": "transports",
    "traffic_runs": "transports",
    # front ends: the command line, the pytest plugin, API fuzzing, the promises command.
    "__init__": TOP,
    "cli": TOP,
    "cliparse": TOP,
    "cliruns": TOP,
    "pytest_plugin": TOP,
    "api_fuzz": TOP,
    "promises_command": TOP,
    "baseline_command": TOP,
    "diff_command": TOP,
    "matrix_command": TOP,
}

ROOM_DOCS = {
    "core": "The model every room speaks: the driver protocol, targets, the gateway,\n"
            "outcomes, certificates, baselines, exit codes, the error style and what the kit\n"
            "trusts (docs/architecture.md#rooms). Imports only spec.\n",
    "engine": "The engine: checks, the runner that plans and runs them, the seed policy and\n"
              "the promises judge (docs/architecture.md#rooms). Imports core.\n",
    "report": "The reports: text, JSON, JUnit and Markdown, and the files they are written\n"
              "to (docs/architecture.md#rooms). Imports core and engine.\n",
    "transports": "How the kit reaches a target: the built-in target, the HTTP client and\n"
                  "server, cmd: launchers and the loopback plumbing\n"
                  "(docs/architecture.md#rooms). Imports core.\n",
}
KEEP = {"py.typed"}  # files of conformance/ that stay at the top and are not modules
PARTS = {"spec", "reference", "conformance", "fuzz"}
TEXT_SUFFIXES = {".py", ".md", ".toml", ".ini", ".cfg", ".txt", ".yml", ".yaml", ".js",
                 ".mjs", ".cjs", ".sh", ".json", ".rst"}
SELF = Path("tools/rooms.py")


def rooms() -> list[str]:
    return sorted({room for room in ROOMS.values() if room})


def new_name(dotted: str) -> str:
    """``dotted`` (a module name) as it reads after the move."""
    if not (dotted == PACKAGE or dotted.startswith(PACKAGE + ".")):
        return dotted
    rest = dotted[len(PACKAGE) + 1:].split(".") if dotted != PACKAGE else []
    if rest and ROOMS.get(rest[0]):
        return ".".join([PACKAGE, ROOMS[rest[0]], *rest])
    return dotted


# --- the files -----------------------------------------------------------------------------


def listed_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         check=True, capture_output=True).stdout.decode()
    return sorted({Path(p) for p in out.split("\0") if p and (ROOT / p).is_file()})


def module_of(path: Path) -> tuple[str, bool] | None:
    """The dotted module a kit file is (and whether it is a package's ``__init__``)."""
    if path.suffix != ".py" or not path.parts or path.parts[0] not in PARTS:
        return None
    parts = list(path.with_suffix("").parts)
    is_init = parts[-1] == "__init__"
    if is_init:
        parts = parts[:-1]
    return ".".join(["subagent_tck", *parts]), is_init


def destination(path: Path) -> Path:
    """Where ``path`` (relative to the root) lives after the move."""
    if len(path.parts) < 2 or path.parts[0] != "conformance":
        return path
    head = path.parts[1]
    key = head[:-3] if head.endswith(".py") and len(path.parts) == 2 else head
    room = ROOMS.get(key)
    if not room:
        return path
    return Path("conformance", room, *path.parts[1:])


# --- rewriting -----------------------------------------------------------------------------

_ABSOLUTE = re.compile(r"(?<![\w.])subagent_tck\.conformance\.(\w+)")
_PATH = re.compile(r"(?<![\w/.-])((?:\.\./)*)conformance/(\w+)"
                   r"""(?=\.py\b|/|\.schema\.json|["'`])""")
_JOINED = re.compile(r"""(["'])conformance\1(\s*/\s*)(["'])(\w+)((?:\.schema)?\.(?:py|json))\3""")


def _absolute(match: re.Match[str]) -> str:
    room = ROOMS.get(match.group(1))
    return f"{PACKAGE}.{room}.{match.group(1)}" if room else match.group(0)


def _path(match: re.Match[str]) -> str:
    name = match.group(2)
    after = match.string[match.end():]
    key = name
    if after.startswith(".schema.json"):
        key = name + ".schema.json"
    room = ROOMS.get(key)
    return f"{match.group(1)}conformance/{room}/{name}" if room else match.group(0)


def _joined(match: re.Match[str]) -> str:
    quote, slash, q2, name, suffix = match.groups()
    key = name if suffix == ".py" else name + suffix
    room = ROOMS.get(key) or (ROOMS.get(name) if suffix == ".py" else None)
    if not room:
        return match.group(0)
    return f"{quote}conformance{quote}{slash}{q2}{room}{q2}{slash}{q2}{name}{suffix}{q2}"


_FROM_PACKAGE = re.compile(r"^([ \t]*)from subagent_tck\.conformance import ([\w, ]+)$", re.M)


def _from_package(match: re.Match[str]) -> str:
    """``from subagent_tck.conformance import a, b`` on one line (also inside a string, like a
    test's generated conftest), each moved module imported from its room."""
    indent, names = match.groups()
    groups: dict[str, list[str]] = {}
    for name in (n.strip() for n in names.split(",")):
        if not name:
            continue
        module = name.split(" as ")[0].strip()
        room = ROOMS.get(module)
        groups.setdefault(f"{PACKAGE}.{room}" if room else PACKAGE, []).append(name)
    if list(groups) == [PACKAGE]:
        return match.group(0)
    return "\n".join(f"{indent}from {base} import {', '.join(names)}"
                     for base, names in groups.items())


def rewrite_text(text: str) -> str:
    text = _FROM_PACKAGE.sub(_from_package, text)
    text = _ABSOLUTE.sub(_absolute, text)
    text = _PATH.sub(_path, text)
    return _JOINED.sub(_joined, text)


def _relative(target: str, package: str) -> tuple[int, str]:
    """``target`` (absolute) as a relative import from ``package``: (level, module)."""
    a, p = target.split("."), package.split(".")
    common = 0
    while common < min(len(a), len(p)) and a[common] == p[common]:
        common += 1
    return len(p) - common + 1, ".".join(a[common:])


_FROM = re.compile(r"from\s+(\.*[\w.]*)\s+import\b")


def rewrite_imports(text: str, old_module: str | None, new_module: str | None,
                    is_init: bool) -> str:
    """Re-express the relative imports of a kit file written as ``old_module``, which now is
    ``new_module`` (both None outside the kit), and move ``from subagent_tck.conformance
    import X`` of a moved module ``X`` to its room."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    old_pkg = new_pkg = ""
    if old_module is not None and new_module is not None:
        old_pkg = old_module if is_init else old_module.rpartition(".")[0]
        new_pkg = new_module if is_init else new_module.rpartition(".")[0]
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in ``text``
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level and not old_pkg:
            continue
        start = offsets[node.lineno - 1] + node.col_offset
        assert node.end_lineno is not None and node.end_col_offset is not None
        end = offsets[node.end_lineno - 1] + node.end_col_offset
        edit = _import_from(node, text[start:end], old_pkg, new_pkg)
        if edit is not None:
            edits.append((start, end, edit))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _import_from(node: ast.ImportFrom, source: str, old_pkg: str, new_pkg: str) -> str | None:
    """The new text of one ``from ... import ...`` statement (``source``), or None."""
    if node.level == 0:
        if node.module != PACKAGE:
            return None  # an absolute module name is rewritten as text
        base = PACKAGE
        parents = [_parent_after(base, alias.name) for alias in node.names]
        if all(parent == base for parent in parents):
            return None
        prefixes = [f"from {parent}" for parent in parents]
    else:
        parts = old_pkg.split(".")
        if node.level - 1 >= len(parts):
            return None
        base = ".".join(parts[: len(parts) - (node.level - 1)])
        if node.module:
            level, module = _relative(new_name(f"{base}.{node.module}"), new_pkg)
            if (level, module) == (node.level, node.module):
                return None
            return _FROM.sub(f"from {'.' * level}{module} import", source, count=1)
        parents = [_parent_after(base, alias.name) for alias in node.names]
        prefixes = []
        for parent in parents:
            level, module = _relative(parent + ".x", new_pkg)
            prefixes.append(f"from {'.' * level}{module[:-2] if module != 'x' else ''}")
        if all(prefix == f"from {'.' * node.level}" for prefix in prefixes):
            return None
    if len(set(prefixes)) == 1:
        return _FROM.sub(f"{prefixes[0]} import", source, count=1)
    indent = " " * node.col_offset
    groups: dict[str, list[str]] = {}
    for prefix, alias in zip(prefixes, node.names, strict=True):
        groups.setdefault(prefix, []).append(alias.name + (f" as {alias.asname}"
                                                           if alias.asname else ""))
    return f"\n{indent}".join(f"{prefix} import {', '.join(names)}"
                              for prefix, names in groups.items())


def _parent_after(base: str, name: str) -> str:
    """The package ``base.name`` is in after the move (``base`` when it does not move)."""
    moved = new_name(f"{base}.{name}")
    return moved.rpartition(".")[0] if moved != f"{base}.{name}" else base


def rewrite_pyproject(text: str) -> str:
    text = rewrite_text(text)
    for room in rooms():
        dotted = f"{PACKAGE}.{room}"
        if f'"{dotted}",' not in text:
            text = text.replace(f'  "{PACKAGE}",\n', f'  "{PACKAGE}",\n  "{dotted}",\n', 1)
        if f'"{dotted}" = "conformance/{room}"' not in text:
            text = text.replace(f'"{PACKAGE}" = "conformance"\n',
                                f'"{dotted}" = "conformance/{room}"\n"{PACKAGE}" = '
                                '"conformance"\n', 1)
    data = sorted({ROOMS[k] for k in ROOMS if k.endswith(".json")})
    for room in data:
        line = f'"{PACKAGE}.{room}" = ["*.json"]\n'
        if f'\n"{PACKAGE}.{room}" = [' not in text:  # a room's data may list more files
            text = text.replace(f'"{PACKAGE}" = ["*.json", "py.typed"]\n',
                                f'"{PACKAGE}" = ["*.json", "py.typed"]\n{line}', 1)
    return text


# --- moving --------------------------------------------------------------------------------


def _git_mv(src: Path, dst: Path, dry: bool) -> None:
    print(f"move {src.as_posix()} -> {dst.as_posix()}")
    if dry:
        return
    (ROOT / dst).parent.mkdir(parents=True, exist_ok=True)
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", str(src)], cwd=ROOT,
                             capture_output=True).returncode == 0
    if tracked:
        subprocess.run(["git", "mv", str(src), str(dst)], cwd=ROOT, check=True)
    else:
        shutil.move(str(ROOT / src), str(ROOT / dst))


def unplaced() -> list[str]:
    here = ROOT / "conformance"
    names = []
    for entry in sorted(here.iterdir()):
        if entry.name in rooms() or entry.name in KEEP or entry.name.startswith("."):
            continue
        if entry.name == "__pycache__":
            continue
        key = entry.name[:-3] if entry.suffix == ".py" else entry.name
        if key not in ROOMS:
            names.append(f"conformance/{entry.name}")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="print, change nothing")
    args = parser.parse_args(argv)
    dry = args.dry_run

    # 1. every text file, rewritten against where it was written
    changed: dict[Path, str] = {}
    for path in listed_files():
        if path == SELF or path.suffix not in TEXT_SUFFIXES:
            continue
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        new = rewrite_pyproject(text) if path.as_posix() == "pyproject.toml" else text
        found = module_of(path)
        if path.suffix == ".py":
            moved = module_of(destination(path))
            new = rewrite_imports(new, found[0] if found else None,
                                  moved[0] if moved else None, bool(found and found[1]))
        if path.as_posix() != "pyproject.toml":
            new = rewrite_text(new)
        if new != text:
            changed[destination(path)] = new

    # 2. the moves (a package moves whole; into an existing room, file by file)
    for key, room in ROOMS.items():
        if not room:
            continue
        src = Path("conformance", key + ("" if key.endswith(".json") else ".py"))
        if not (ROOT / src).exists():
            src = Path("conformance", key)
        if not (ROOT / src).exists():
            continue
        dst = Path("conformance", room, src.name)
        if (ROOT / src).is_dir() and (ROOT / dst).exists():
            for inner in sorted((ROOT / src).rglob("*")):
                if inner.is_file() and "__pycache__" not in inner.parts:
                    rel = inner.relative_to(ROOT)
                    target = Path("conformance", room, *rel.parts[1:])
                    if (ROOT / target).exists():
                        print(f"conflict: {rel.as_posix()} and {target.as_posix()} both exist")
                        return 1
                    _git_mv(rel, target, dry)
            continue
        if (ROOT / dst).exists():
            print(f"conflict: {src.as_posix()} and {dst.as_posix()} both exist")
            return 1
        _git_mv(src, dst, dry)

    # 3. rooms' __init__.py
    for room in rooms():
        init = ROOT / "conformance" / room / "__init__.py"
        if not init.exists():
            print(f"create conformance/{room}/__init__.py")
            if not dry:
                init.parent.mkdir(parents=True, exist_ok=True)
                init.write_text(f'"""{ROOM_DOCS[room]}"""\n', encoding="utf-8")

    # 4. the rewritten texts, at their new places
    for path, text in sorted(changed.items()):
        print(f"rewrite {path.as_posix()}")
        if not dry:
            (ROOT / path).write_text(text, encoding="utf-8")
    if not dry and shutil.which("ruff"):
        py = [str(p) for p in changed if p.suffix == ".py" and p.parts[0] != "adapters"]
        if py:
            subprocess.run(["ruff", "check", "-q", "--select", "I", "--fix", *py], cwd=ROOT)
    if not dry:
        subprocess.run(["git", "add", "-A", "conformance"], cwd=ROOT, check=True)

    left = unplaced()
    for name in left:
        print(f"unplaced: {name} (add a row to ROOMS in tools/rooms.py and run again)")
    print(f"{len(changed)} files rewritten; {len(left)} left unplaced"
          + ("; now run: pip install -e ." if changed and not dry else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
