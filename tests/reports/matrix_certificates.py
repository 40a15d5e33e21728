"""Certificates for the matrix tests, made from one the repository stores
(docs/matrix/certificates/, a real certify run of the reference): a copy with another
implementation, version, catalogue or outcome is what another run would have written."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).parents[2]
STORED = ROOT / "docs" / "matrix" / "certificates"
BASE = json.loads((STORED / "reference-preset-composition.json").read_text(encoding="utf-8"))


def certificate(name: str = "runtime", version: str = "1.0.0", **changes: Any) -> dict[str, Any]:
    """The reference's certificate as ``name`` at ``version``, with top-level ``changes``."""
    document = copy.deepcopy(BASE)
    document["target"]["info"]["name"] = name
    document["target"]["info"]["version"] = version
    document["target"]["spec"] = f"cmd:{name}"
    document.update(changes)
    return document


def rule(document: dict[str, Any], rule_id: str) -> dict[str, Any]:
    return next(r for r in document["rules"] if r["id"] == rule_id)


def failing(document: dict[str, Any], rule_id: str, expected: Any, observed: Any,
            outcome: str = "fail", reason: str = "") -> dict[str, Any]:
    """``document`` with ``rule_id`` failing one assertion (``expected``, ``observed``)."""
    entry = rule(document, rule_id)
    entry["outcome"] = outcome
    entry["providers"] = [{"provider": None, "outcome": outcome, "reason": reason,
                           "inexpressible": False}]
    entry["failures"] = [{"rule": rule_id, "check": "a-check", "title": entry["title"],
                          "message": f"{rule_id} broke", "expected": expected,
                          "observed": observed, "provider": None, "error": False,
                          "replay": f"subagent-tck certify --target x --rule {rule_id}"}]
    entry["replay"] = f"subagent-tck certify --target x --rule {rule_id} --seed 0"
    return document


def write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")  # a lone surrogate too
    return path


def make_matrix() -> ModuleType:
    """tools/make_matrix.py, the command that makes docs/matrix/ (and launches the browser)."""
    return tool("make_matrix")


def tool(name: str) -> ModuleType:
    """tools/NAME.py, a command of the repository's own (run as a script, imported here)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module
