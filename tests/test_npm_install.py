"""The adapters' install check (tests/npm_install.py): an old install is installed again."""

from __future__ import annotations

import json
from pathlib import Path

from npm_install import stale


def _package(root: Path, name: str, version: str) -> None:
    where = root / "node_modules" / name
    where.mkdir(parents=True)
    (where / "package.json").write_text(json.dumps({"name": name, "version": version}))


def test_an_adapter_is_stale_when_a_pinned_package_is_missing_or_at_another_version(
        tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {
        "@scope/kept": "1.2.3", "@scope/moved": "0.1.0-rc.8", "absent": "4.0.4",
        "ranged": "^2.0.0"}}))
    _package(tmp_path, "@scope/kept", "1.2.3")
    _package(tmp_path, "@scope/moved", "0.1.0-rc.7")
    _package(tmp_path, "ranged", "2.5.0")
    assert stale(tmp_path) == ["@scope/moved@0.1.0-rc.8", "absent@4.0.4"]
    _package(tmp_path, "absent", "4.0.4")
    (tmp_path / "node_modules" / "@scope" / "moved" / "package.json").write_text(
        json.dumps({"version": "0.1.0-rc.8"}))
    assert stale(tmp_path) == []
