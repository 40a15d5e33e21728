"""The conformance kit: targets, checks, the runner, certificates and reports.

Public surface (docs/architecture.md)::

    import functools
    from subagent_tck.conformance import Recipe, RunConfig, certify, exit_code, load_target

    target = load_target("reference")
    certificate = certify(target, RunConfig(target_spec="reference"))
    print(certificate.verdict, exit_code(certificate))

    # two check runs at once, each worker loading the target again (docs/certify.md#jobs)
    recipe = Recipe(functools.partial(load_target, "reference"))
    certificate = certify(target, RunConfig(target_spec="reference", jobs=2), recipe=recipe)

Writing a check: ``from subagent_tck.conformance.engine.check import check, CheckContext``
(the decorator is not re-exported here: its name is also its module's). Implementing a target:
:class:`Target` and :class:`Deployment`. The command line is ``cli.main``.

Names load on first use, so importing the package (as the pytest plugin's entry point does in
every pytest run) costs nothing until the kit is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: module (by its full name: tools/rooms.py rewrites it when a module moves) -> names it exports
_MODULES = {
    "subagent_tck.conformance.core.baseline": (
        "Baseline", "BaselineEntry", "load_baseline", "parse_baseline"),
    "subagent_tck.conformance.core.certificate": (
        "CapabilityVerdict", "Certificate", "ProviderOutcome", "RuleResult", "Verdict"),
    "subagent_tck.conformance.engine.check": ("Check", "CheckContext"),
    "subagent_tck.conformance.core.exitcode": ("ExitCode", "exit_code"),
    "subagent_tck.conformance.core.gateway": ("Gateway",),
    "subagent_tck.conformance.core.outcome": ("Failure", "Outcome"),
    "subagent_tck.conformance.engine.profiles": ("PROFILES", "Profile"),
    "subagent_tck.conformance.engine.runner": (
        "CheckFinished", "CheckStarted", "Recipe", "RunConfig", "RunFinished", "RunStarted",
        "Suite", "certify"),
    "subagent_tck.conformance.core.target": ("Deployment", "Target"),
    "subagent_tck.conformance.transports.targets": ("load_target",),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
_RENAMED = {"exit_code": "for_certificate"}

__all__ = [
    "PROFILES", "Baseline", "BaselineEntry", "CapabilityVerdict", "Certificate", "Check",
    "CheckContext", "CheckFinished", "CheckStarted", "Deployment", "ExitCode", "Failure",
    "Gateway", "Outcome", "Profile", "ProviderOutcome", "Recipe", "RuleResult", "RunConfig",
    "RunFinished", "RunStarted", "Suite", "Target", "Verdict", "certify", "exit_code",
    "load_baseline", "load_target", "parse_baseline",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .core.baseline import Baseline, BaselineEntry, load_baseline, parse_baseline
    from .core.certificate import (
        CapabilityVerdict,
        Certificate,
        ProviderOutcome,
        RuleResult,
        Verdict,
    )
    from .core.exitcode import ExitCode
    from .core.exitcode import for_certificate as exit_code
    from .core.gateway import Gateway
    from .core.outcome import Failure, Outcome
    from .core.target import Deployment, Target
    from .engine.check import Check, CheckContext
    from .engine.profiles import PROFILES, Profile
    from .engine.runner import (
        CheckFinished,
        CheckStarted,
        Recipe,
        RunConfig,
        RunFinished,
        RunStarted,
        Suite,
        certify,
    )
    from .transports.targets import load_target
