"""Helpers of the command-line tests: the certifier's fake suite (tests/conformance/fakes.py:
rules, checks, targets), loaded under one module name so that a target spec
``python:subagent_tck_test_fakes:...`` finds it (its ``fakes`` fixture is tests/conftest.py's),
and the repository's root as the working directory a command runs in (``at_root``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAKES_NAME = "subagent_tck_test_fakes"
#: A target spec's beginning that names one of the fake targets: ``FAKE + "healthy"``.
FAKE = f"python:{FAKES_NAME}:"
#: The source of a module whose class ``Quiet`` is a target that describes itself (one
#: provider, ``p``, of no capability) and is never deployed: what a test writes into a file a
#: target spec or a script of its own loads.
QUIET_TARGET = """
from subagent_tck.conformance.core.protocol import ProviderInfo, TargetInfo


class Quiet:
    def info(self):
        return TargetInfo(name="quiet", providers=[ProviderInfo(name="p", capabilities=[])])

    def deploy(self, config, gateway):
        raise AssertionError("a test that only loads its target never deploys it")

    def close(self):
        pass
"""


def load_fakes() -> ModuleType:
    """fakes.py under :data:`FAKES_NAME`, loaded once."""
    if FAKES_NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            FAKES_NAME, Path(__file__).parent / "conformance" / "fakes.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[FAKES_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[FAKES_NAME]


def at_root(patch: pytest.MonkeyPatch) -> None:
    """Run in the repository's root, which (with tests/) goes on ``sys.path``: the examples'
    targets load by their specs (``python:examples.providers...``)."""
    patch.chdir(ROOT)
    patch.syspath_prepend(str(ROOT))
    patch.syspath_prepend(str(ROOT / "tests"))
