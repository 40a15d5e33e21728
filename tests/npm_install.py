"""Installing an npm adapter for the tests that run it (adapters/dsh, adapters/claude-code).

An adapter counts as installed when every dependency its ``package.json`` pins is in
``node_modules`` at the pinned version: an install left from an older ``package.json`` (a
package added, a version moved) is installed again rather than run, where it would fail with
node's ``ERR_MODULE_NOT_FOUND`` far from the cause. Parallel test workers install once (a file
lock). When the npm registry cannot be reached the test fails, loudly, with npm's own words and
the command to retry; it never skips.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

import pytest


def stale(adapter: Path) -> list[str]:
    """The dependencies of ``adapter/package.json`` missing from ``node_modules`` or installed
    at another version than the one pinned (``name@version`` each); empty: installed."""
    manifest = json.loads((adapter / "package.json").read_text(encoding="utf-8"))
    out = []
    for name, wanted in sorted(manifest.get("dependencies", {}).items()):
        installed = adapter / "node_modules" / name / "package.json"
        try:
            version = json.loads(installed.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError):
            version = None
        pinned = wanted if wanted[:1].isdigit() else None  # a range: any version will do
        if version is None or (pinned is not None and version != pinned):
            out.append(f"{name}@{wanted}")
    return out


def ensure_installed(adapter: Path, timeout: float = 600, *, clean: bool = True) -> None:
    """``npm ci`` in ``adapter`` unless it is installed (see :func:`stale`); ``clean=False``:
    ``npm install`` from the same lock, for a lock ``npm ci`` refuses (optional platform
    packages the registry serves for this platform only, adapters/opencode)."""
    where = adapter.relative_to(adapter.parents[1]).as_posix()
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(f"`npm` is not on PATH: install Node.js 20 or later (it ships npm), then "
                    f"`cd {where} && npm ci`")
    with open(adapter / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not stale(adapter):
            return
        verb = "ci" if clean else "install"
        result = subprocess.run([npm, verb, "--no-audit", "--no-fund"], cwd=adapter,
                                capture_output=True, text=True, timeout=timeout,
                                stdin=subprocess.DEVNULL, check=False)
        missing = stale(adapter)
        if result.returncode != 0 or missing:
            tail = "\n".join((result.stdout + result.stderr).splitlines()[-20:])
            pytest.fail(f"`npm {verb}` in {where} failed (exit {result.returncode}; still missing: "
                        f"{', '.join(missing) or 'nothing'}); the packages come from the npm "
                        f"registry, retry `cd {where} && npm {verb}` once it is reachable:\n{tail}")
