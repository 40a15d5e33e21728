"""Fixtures of the report tests: the hostile target importable by a target spec."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HOSTILE_MODULE = "subagent_tck_hostile_target"


@pytest.fixture
def hostile_spec() -> Iterator[str]:
    """The target spec of the hostile target (tests/reports/hostile_target.py)."""
    path = Path(__file__).with_name("hostile_target.py")
    spec = importlib.util.spec_from_file_location(HOSTILE_MODULE, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[HOSTILE_MODULE] = module
    spec.loader.exec_module(module)
    try:
        yield f"python:{HOSTILE_MODULE}:factory"
    finally:
        sys.modules.pop(HOSTILE_MODULE, None)
