"""Fixtures of the certifier's tests: the fake suite (rules, checks, targets) of fakes.py."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

FAKES_NAME = "subagent_tck_test_fakes"


def load_fakes() -> ModuleType:
    """fakes.py under one module name, so ``python:subagent_tck_test_fakes:...`` finds it."""
    if FAKES_NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            FAKES_NAME, Path(__file__).with_name("fakes.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[FAKES_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[FAKES_NAME]


# Loaded at collection: pytester restores sys.modules after each in-process run, and a kit
# module imported during one would come back as a second instance, unpatched.
load_fakes()


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The fakes module, with its suite installed as the default one for this test."""
    module = load_fakes()
    module.RELEASE.clear()
    module.install(monkeypatch)
    yield module
    module.RELEASE.set()  # free any check a test left hanging
