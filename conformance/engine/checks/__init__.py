"""The checks, one module per rule family. Importing a module registers its checks."""

from __future__ import annotations

import importlib
import pkgutil

from ..check import REGISTRY, Check


def load_checks() -> dict[str, Check]:
    """Import every check module of this package and return the registry."""
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")
    return REGISTRY
