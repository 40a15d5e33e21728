"""The conformance kit: targets, checks, the runner, certificates and reports.

Public surface (DESIGN.md, "conformance/")::

    from subagent_tck.conformance import RunConfig, certify, exit_code, load_target

    target = load_target("reference")
    certificate = certify(target, RunConfig(target_spec="reference"))
    print(certificate.verdict, exit_code(certificate))

Writing a check: ``from subagent_tck.conformance.check import check, CheckContext`` (the
decorator is not re-exported here: its name is also its module's). Implementing a target:
:class:`Target` and :class:`Deployment`. The command line is ``cli.main``.

Names load on first use, so importing the package (as the pytest plugin's entry point does in
every pytest run) costs nothing until the kit is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Baseline": "baseline", "BaselineEntry": "baseline", "load_baseline": "baseline",
    "parse_baseline": "baseline",
    "CapabilityVerdict": "certificate", "Certificate": "certificate",
    "ProviderOutcome": "certificate", "RuleResult": "certificate", "Verdict": "certificate",
    "Check": "check", "CheckContext": "check",
    "ExitCode": "exitcode", "exit_code": "exitcode",
    "Gateway": "gateway",
    "Failure": "outcome", "Outcome": "outcome",
    "PROFILES": "runner", "CheckFinished": "runner", "CheckStarted": "runner",
    "Profile": "runner", "RunConfig": "runner", "RunFinished": "runner",
    "RunStarted": "runner", "Suite": "runner", "certify": "runner",
    "Deployment": "target", "Target": "target",
    "load_target": "targets",
}
_RENAMED = {"exit_code": "for_certificate"}

__all__ = [
    "PROFILES", "Baseline", "BaselineEntry", "CapabilityVerdict", "Certificate", "Check",
    "CheckContext", "CheckFinished", "CheckStarted", "Deployment", "ExitCode", "Failure",
    "Gateway", "Outcome", "Profile", "ProviderOutcome", "RuleResult", "RunConfig",
    "RunFinished", "RunStarted", "Suite", "Target", "Verdict", "certify", "exit_code",
    "load_baseline", "load_target", "parse_baseline",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), _RENAMED.get(name, name))
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .baseline import Baseline, BaselineEntry, load_baseline, parse_baseline
    from .certificate import (
        CapabilityVerdict,
        Certificate,
        ProviderOutcome,
        RuleResult,
        Verdict,
    )
    from .check import Check, CheckContext
    from .exitcode import ExitCode
    from .exitcode import for_certificate as exit_code
    from .gateway import Gateway
    from .outcome import Failure, Outcome
    from .runner import (
        PROFILES,
        CheckFinished,
        CheckStarted,
        Profile,
        RunConfig,
        RunFinished,
        RunStarted,
        Suite,
        certify,
    )
    from .target import Deployment, Target
    from .targets import load_target
