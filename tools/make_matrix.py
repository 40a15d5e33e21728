"""Make docs/matrix/ from the certificates the repository makes itself (docs/matrix.md).

Run from the repository root::

    python tools/make_matrix.py                    # rebuild docs/matrix/ from the stored
                                                   # certificates (seconds, no runtime runs)
    python tools/make_matrix.py --check            # exit 1 when docs/matrix/ is stale
    python tools/make_matrix.py --refresh [NAME]   # certify the targets again (slow: real
                                                   # runtimes), store, rebuild
    python tools/make_matrix.py --add FILE ...     # store certificates made elsewhere (a
                                                   # runtime at another version), rebuild
    python tools/make_matrix.py --screenshot       # docs/matrix/screenshot.png (Playwright
                                                   # driving Debian's chromium)

The certificates live in ``docs/matrix/certificates/`` (one JSON file each, as ``certify
--format json`` wrote it); the site beside them is rebuilt from them alone and byte for byte the
same every time, so ``tests/reports/test_matrix_docs.py`` fails when it is stale. ``--refresh``
runs each target of ``sources()`` at seed 0 with its baseline (the commands of docs/dsh.md,
docs/claude-code.md, docs/opencode.md and docs/qwen-code.md) and stores what it certified,
passed or failed: the matrix reports, it never hides a red column. A runtime that cannot run
here (its npm packages not installed, no network to install them) is named and left as it was
stored, and so is one whose run stopped early or had errors (a crash or a timeout: on a loaded
machine opencode's starts timed out at 30 s): those are no result to publish.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "matrix"
CERTIFICATES = DOCS / "certificates"
SCREENSHOT = DOCS / "screenshot.png"
#: docs/rules.md seen from docs/matrix/
RULES_HREF = "../rules.md"
#: files of docs/matrix/ that the site does not make
KEPT = {"certificates", "screenshot.png"}
#: Debian's chromium (`apt-get install chromium`): no browser is downloaded
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync")
VIEWPORT = {"width": 1400, "height": 900}
SEED = 0
#: A runtime that runs an agent per check takes minutes (docs/opencode.md: 222 to 290 s alone);
#: on a loaded machine the default 600 s deadline cut opencode's run at 24 of 45 checks, which
#: would store a certificate of errors
SLOW = ("--deadline", "1800")


def _dsh_commands() -> ModuleType:
    """adapters/dsh/make_report.py: the home of DSH's certify commands (docs/dsh.md)."""
    spec = importlib.util.spec_from_file_location(
        "dsh_make_report", ROOT / "adapters" / "dsh" / "make_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Source:
    """A target the repository certifies for the matrix: ``certify ARGS --seed 0``, stored as
    ``docs/matrix/certificates/NAME.json``."""

    name: str
    args: tuple[str, ...]
    npm: str | None = None  # the adapter folder whose npm packages it needs


def sources() -> list[Source]:
    dsh = _dsh_commands()
    return [
        Source("reference-preset-composition", ("certify", "--target", "reference")),
        Source("reference-request-controls", ("certify", "--target", "reference",
                                              "--edition", "request-controls")),
        Source("javascript", ("certify", "--target",
                              "cmd:node implementations/javascript/server.mjs")),
        Source("dsh-request-controls", tuple(dsh.COMMAND), "adapters/dsh"),
        Source("dsh-preset-composition", tuple(dsh.PRESETS_COMMAND), "adapters/dsh"),
        Source("claude-code", ("certify", "--target", "cmd:python adapters/claude-code/server.py",
                               "--edition", "preset-composition", "--timeout", "180",
                               "--baseline", "adapters/claude-code/baseline.toml",
                               *SLOW), "adapters/claude-code"),
        # TF-02's check alone takes 121 s (36 deployments, 31 starts of about 3.4 s), beyond
        # 180 s beside a second job on two cores
        Source("opencode", ("certify", "--target", "cmd:python adapters/opencode/server.py",
                            "--edition", "preset-composition", "--timeout", "600",
                            "--baseline", "adapters/opencode/baseline.toml", *SLOW),
               "adapters/opencode"),
        # a `codex exec` per kit run: 260 s with the baseline and two jobs at load 9 (docs/codex.md)
        Source("codex", ("certify", "--target", "cmd:python adapters/codex/server.py",
                         "--edition", "preset-composition", "--timeout", "600",
                         "--baseline", "adapters/codex/baseline.toml", "--deadline", "2400"),
               "adapters/codex"),
        # a headless qwen per kit run: 440 s with two jobs at a load average of 5 to 10
        # (docs/qwen-code.md)
        Source("qwen-code", ("certify", "--target", "cmd:python adapters/qwen-code/server.py",
                             "--edition", "preset-composition", "--timeout", "600",
                             "--baseline", "adapters/qwen-code/baseline.toml",
                             "--deadline", "2400"), "adapters/qwen-code"),
    ]


# --- the site ------------------------------------------------------------------------------


def stored() -> list[Path]:
    return sorted(CERTIFICATES.glob("*.json"))


def matrix() -> Any:
    """The matrix of the stored certificates."""
    from subagent_tck.conformance.report.matrix_model import build
    from subagent_tck.conformance.report.matrix_read import read_certificate

    return build([read_certificate(p) for p in stored()], RULES_HREF)


def site() -> dict[str, str]:
    """Every file of docs/matrix/ but the certificates and the screenshot, from the stored
    certificates."""
    from subagent_tck.conformance.report.matrix_site import pages

    return pages(matrix())


def stale() -> list[str]:
    """What differs between docs/matrix/ and the site its certificates make (empty: fresh)."""
    wanted = site()
    problems = []
    for name, text in sorted(wanted.items()):
        path = DOCS / name
        if not path.is_file():
            problems.append(f"{name} is missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{name} differs")
    for path in sorted(DOCS.rglob("*")):
        name = path.relative_to(DOCS).as_posix()
        if path.is_file() and name.split("/")[0] not in KEPT and name not in wanted:
            problems.append(f"{name} is not made from the certificates")
    return problems


def rebuild() -> None:
    from subagent_tck.conformance.report.matrix_site import write_site

    made = matrix()
    written = write_site(made, DOCS)
    for path in sorted(DOCS.rglob("*")):
        name = path.relative_to(DOCS).as_posix()
        if path.is_file() and name.split("/")[0] not in KEPT and name not in written:
            path.unlink()
    print(f"docs/matrix/: {len(made.columns)} certificate(s), {len(written)} files")


# --- certificates ----------------------------------------------------------------------------


def _installed(folder: str) -> bool:
    manifest = json.loads((ROOT / folder / "package.json").read_text(encoding="utf-8"))
    return all((ROOT / folder / "node_modules" / name / "package.json").is_file()
               for name in manifest.get("dependencies", {}))


def refresh(names: list[str]) -> int:
    """Certify each selected source at seed 0 and store its certificate; 1 when one could
    not be made."""
    chosen = [s for s in sources() if not names or s.name in names]
    unknown = sorted(set(names) - {s.name for s in sources()})
    if unknown:
        print(f"unknown source(s) {', '.join(unknown)}: choose from "
              f"{', '.join(s.name for s in sources())}", file=sys.stderr)
        return 2
    CERTIFICATES.mkdir(parents=True, exist_ok=True)
    failed = 0
    for source in chosen:
        if source.npm and not _installed(source.npm):
            print(f"{source.name}: skipped: run `cd {source.npm} && npm ci` (npm install for "
                  "adapters/opencode and adapters/qwen-code) first; its stored certificate is "
                  "kept")
            failed += 1
            continue
        document, why = certify_into(source.args, CERTIFICATES / f"{source.name}.json")
        if why is not None:
            print(f"{source.name}: {why}; the stored one is kept (a crash or a timeout, which a "
                  f"loaded machine gives a slow runtime: run `--refresh {source.name}` again, or "
                  f"`subagent-tck {' '.join(source.args)}` by hand to see why)")
            failed += 1
            continue
        assert document is not None
        print(f"{source.name}: {document['verdict']}")
    rebuild()
    return 1 if failed else 0


def certify_into(args: tuple[str, ...], store: Path, env: dict[str, str] | None = None,
                 accept: Any = None) -> tuple[dict[str, Any] | None, str | None]:
    """Run ``subagent-tck ARGS --seed SEED`` (its JSON report) and copy the certificate to
    ``store`` when it is one to publish: none that stopped early or has an errored rule, and
    one ``accept(document)`` does not refuse (its answer: why not). The certificate, and why
    it was not stored (None: stored)."""
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / "certificate.json"
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "subagent_tck.conformance.cli", *args,
                        "--seed", str(SEED), "--format", "json", "--output", str(output)],
                       cwd=ROOT, env=env, check=False, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL)
        seconds = time.monotonic() - started
        document = _certificate(output)
        if document is None:
            return None, f"no certificate after {seconds:.0f} s"
        errors = [r["id"] for r in document["rules"] if r.get("outcome") == "error"]
        why = document.get("stopped_early") or (f"{', '.join(errors)} errored" if errors
                                                 else accept(document) if accept else None)
        if why:
            return document, f"{why} after {seconds:.0f} s: not stored"
        shutil.copyfile(output, store)
        return document, None


def _certificate(path: Path) -> dict[str, Any] | None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(document, dict) and "rules" in document and document.get("verdict") != "ERROR"
    return document if ok else None


def add(files: list[str]) -> int:
    """Store certificates made elsewhere (read first: a file that is not one is refused)."""
    from subagent_tck.conformance.report.matrix_model import slug
    from subagent_tck.conformance.report.matrix_read import read_certificate

    CERTIFICATES.mkdir(parents=True, exist_ok=True)
    for name in files:
        source = read_certificate(Path(name))
        info = source.certificate.target.info
        target = CERTIFICATES / (slug(f"{info.name}-{info.version}-"
                                      f"{source.certificate.edition}") + ".json")
        shutil.copyfile(name, target)
        print(f"stored {target.relative_to(ROOT)}")
    rebuild()
    return 0


# --- the browser ---------------------------------------------------------------------------


@contextlib.contextmanager
def browser(javascript: bool = True) -> Iterator[Any]:
    """A Playwright browser context on Debian's chromium (no browser download), with a fresh
    user data directory, closed on every path."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_FLAGS),
            viewport=VIEWPORT, java_script_enabled=javascript, timeout=60_000)
        try:
            yield context
        finally:
            context.close()


def screenshot(site_dir: Path, output: Path, context: Any = None) -> None:
    """The matrix's first screen, opened from disk, as a PNG (in ``context``, a browser of
    :func:`browser`, or one of its own)."""
    if context is None:
        with browser() as own:
            screenshot(site_dir, output, own)
        return
    page = context.new_page()
    try:
        page.goto((site_dir / "index.html").resolve().as_uri())
        page.wait_for_selector("#filters:not([hidden])")
        page.screenshot(path=str(output))
    finally:
        page.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 when docs/matrix/ is stale")
    group.add_argument("--refresh", nargs="*", metavar="NAME",
                       help="certify these sources again (all when none is named)")
    group.add_argument("--add", nargs="+", metavar="FILE", help="store these certificates")
    group.add_argument("--screenshot", action="store_true", help="write " +
                       SCREENSHOT.relative_to(ROOT).as_posix())
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        for problem in problems:
            print(f"docs/matrix/{problem}")
        if problems:
            print("docs/matrix/ is stale: run `python tools/make_matrix.py`", file=sys.stderr)
        return 1 if problems else 0
    if args.refresh is not None:
        return refresh(args.refresh)
    if args.add:
        return add(args.add)
    if args.screenshot:
        screenshot(DOCS, SCREENSHOT)
        print(f"wrote {SCREENSHOT.relative_to(ROOT)}")
        return 0
    rebuild()
    return 0


if __name__ == "__main__":
    sys.exit(main())
