"""Shared fixtures of the fuzzer's tests: the reference target and zoo entries by name."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from subagent_tck.conformance.builtin import reference_target
from subagent_tck.conformance.target import Target

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "examples" / "providers"


def zoo_module(name: str) -> ModuleType:
    return importlib.import_module(f"examples.providers.{name}")


def subtle_names() -> list[str]:
    """The zoo entries marked ``SUBTLE = True`` (read from the source, without importing)."""
    return sorted(
        p.stem for p in ZOO.glob("*.py")
        if not p.stem.startswith("_") and "\nSUBTLE = True" in p.read_text(encoding="utf-8")
    )


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run from the repository root, where ``examples.providers`` is importable."""
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    yield ROOT


@pytest.fixture
def reference() -> Iterator[Target]:
    target = reference_target()
    yield target
    target.close()
