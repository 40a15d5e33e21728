"""Planning: what applies to whom, before anything runs (docs/architecture.md#rooms).

A check runs once per provider it applies to (once for the target when ``per_provider`` is
false). A rule applies to a provider when its capability is None or advertised by that provider
(CA-04: an advertised capability is judged by its whole family; an absent one makes its rules
not-applicable, and the CA rules then judge the refusal), its edition is the run's, and its
component (ST) is shipped by the target, or, for the ST rules a runtime's own delegation tool
answers to (:data:`OWN_TOOL_RULES`), the provider names one. The plan and the certificate's
empty cells are made here; running the plan is :mod:`.scheduling`'s, judging what it saw
:mod:`.verdicts`'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from subagent_tck.spec import (
    CATALOGUE,
    DEFAULT_EDITION,
    Capability,
    Edition,
    ErrorCode,
    Rule,
    TckError,
)

from ..core.baseline import Baseline
from ..core.outcome import Evidence, Outcome
from ..core.promises_file import PromisesFile
from ..core.protocol import ProviderInfo, TargetInfo
from ..core.suggest import hint, rule_hint
from .check import Check

#: The seed of a run when none is given: runs are reproducible by default.
DEFAULT_SEED = 0
DEFAULT_TIMEOUT = 30.0
DEFAULT_DEADLINE = 600.0

#: A cell of the certificate: a rule, for a provider (None: the whole target).
Cell = tuple[str, str | None]
#: What the checks found per cell, in the order they ran.
Table = dict[Cell, list[Evidence]]


@dataclass(frozen=True)
class RunConfig:
    """Everything that shapes one certification run (the CLI's ``certify`` options)."""

    target_spec: str = "<in-process>"
    edition: Edition | None = None  # None: the default edition if supported, else the first
    rules: tuple[str, ...] = ()  # empty: every rule
    profile: str = "ci"
    seed: int = DEFAULT_SEED
    timeout: float = DEFAULT_TIMEOUT
    deadline: float = DEFAULT_DEADLINE
    baseline: Baseline | None = None
    providers: tuple[str, ...] = ()  # empty: every provider the target advertises
    promises: PromisesFile | None = None  # certify --promises: checked after the rules
    promises_path: str = ""
    #: certify --timings: time every check run and target operation (docs/certify.md#timings)
    timings: bool = False
    #: certify --jobs: check runs at once, each in a worker process (docs/certify.md#jobs);
    #: 1 runs them one after another in this process
    jobs: int = 1


@dataclass(frozen=True)
class Suite:
    """The rules and the checks a run uses (the real catalogue and registry by default)."""

    rules: tuple[Rule, ...]
    checks: Mapping[str, Check]

    @classmethod
    def default(cls) -> Suite:
        from .checks import load_checks

        return cls(tuple(CATALOGUE), dict(load_checks()))

    @property
    def by_id(self) -> dict[str, Rule]:
        return {rule.id: rule for rule in self.rules}


@dataclass(frozen=True)
class PlannedCheck:
    """One check to run, for one provider (or the whole target), deciding ``rules``."""

    check: Check
    provider: ProviderInfo | None
    rules: tuple[str, ...]
    #: which of the check's shards (``Check.shards``) this run is
    shard: int = 0

    @property
    def label(self) -> str:
        name = (f"{self.check.name} [{self.provider.name}]" if self.provider
                else self.check.name)
        return (f"{name} (shard {self.shard + 1} of {self.check.shards})"
                if self.check.shards > 1 else name)


def resolve_edition(info: TargetInfo, wanted: Edition | str | None) -> Edition:
    """The run's edition: ``wanted`` if the target supports it (else a usage error naming the
    supported ones), or the default edition, or the target's first."""
    supported = list(info.editions)
    names = ", ".join(e.value for e in supported) or "none"
    if wanted is None:
        if not supported:
            raise TckError(ErrorCode.PROTOCOL_ERROR, "the target's info() lists no editions")
        return DEFAULT_EDITION if DEFAULT_EDITION in supported else supported[0]
    try:
        edition = Edition(wanted)
    except ValueError:
        known = [e.value for e in Edition]
        raise TckError(ErrorCode.USAGE, f"unknown edition {wanted!r}{hint(str(wanted), known)}"
                       f": editions are {', '.join(known)}") from None
    if edition not in supported:
        raise TckError(
            ErrorCode.USAGE,
            f"the target does not support edition {edition.value}: use --edition with one of "
            f"{names}",
        )
    return edition


#: ST rules that a runtime's own delegation tool (``ProviderInfo.delegationTool``) answers to as
#: the ``subagent`` tool would, where the target ships no such tool, each with whether it needs
#: a cap a start's ``maxDepth`` sets (``depthLimit``): the cap a host setting gives a call
#: without one (docs/rules.md#ST-06), the tool at the cap and the notice there
#: (docs/rules.md#ST-07, docs/rules.md#ST-08), and the run it starts (docs/rules.md#ST-09). The
#: other ST rules are about the configurable tool itself (its two parameters, its loads, its
#: wording).
OWN_TOOL_RULES: Mapping[str, bool] = {"ST-06": True, "ST-07": True, "ST-08": True,
                                      "ST-09": False}


def delegates(info: TargetInfo, provider: ProviderInfo | None, *, capped: bool = True) -> bool:
    """Whether ``provider`` (None: any provider of the target) names its own delegation tool
    (and, ``capped``, advertises depthLimit)."""
    return any(p.delegationTool and (not capped or Capability.DEPTH_LIMIT in p.capabilities)
               for p in ([provider] if provider is not None else info.providers))


def not_applicable(rule: Rule, edition: Edition, info: TargetInfo,
                   provider: ProviderInfo | None) -> str | None:
    """Why ``rule`` does not apply to ``provider`` (None: the whole target), or None."""
    if rule.edition is not None and rule.edition != edition:
        return f"edition {rule.edition.value} only (this run: {edition.value})"
    if rule.component is not None and rule.component not in info.components \
            and not (rule.id in OWN_TOOL_RULES
                     and delegates(info, provider, capped=OWN_TOOL_RULES[rule.id])):
        return f"component {rule.component.value} not shipped by the target"
    if rule.capability is None:
        return None
    if provider is None:
        if any(rule.capability in p.capabilities for p in info.providers):
            return None
        return f"no provider advertises {rule.capability.value}"
    if rule.capability not in provider.capabilities:
        return f"provider {provider.name} does not advertise {rule.capability.value}"
    return None


def select_rules(suite: Suite, wanted: Iterable[str]) -> frozenset[str] | None:
    """The selected rule ids (None: all); an unknown id is a usage error naming the fix."""
    wanted = list(wanted)
    if not wanted:
        return None
    known = suite.by_id
    chosen = set()
    for raw in wanted:
        rule_id = raw.strip().upper()
        if rule_id not in known:
            raise TckError(ErrorCode.USAGE, f"unknown rule id {raw!r}{rule_hint(raw, known)} in "
                           "--rule: ids look like TF-01 (see `subagent-tck rules`)")
        chosen.add(rule_id)
    return frozenset(chosen)


def select_providers(info: TargetInfo, wanted: Iterable[str]) -> frozenset[str] | None:
    """The providers to certify (None: all); a name the target does not advertise is a usage
    error with the closest advertised name."""
    wanted = list(wanted)
    if not wanted:
        return None
    advertised = [p.name for p in info.providers]
    for name in wanted:
        if name not in advertised:
            raise TckError(ErrorCode.USAGE, f"--provider {name!r}{hint(name, advertised)}: the "
                           "target advertises no such provider; its providers are "
                           f"{', '.join(advertised) or 'none'}")
    return frozenset(wanted)


def _certified(info: TargetInfo, providers: frozenset[str] | None) -> list[ProviderInfo]:
    """The providers whose own cells a run fills (``--provider``): checks that bind the whole
    target still see every provider."""
    return [p for p in info.providers if providers is None or p.name in providers]


def plan(suite: Suite, info: TargetInfo, edition: Edition,
         selected: frozenset[str] | None,
         providers: frozenset[str] | None = None) -> list[PlannedCheck]:
    """The checks to run, in registry order, each with the selected rules it decides (per
    provider only for the ``providers`` chosen, None: all), a sharded check once per shard."""
    rules = suite.by_id
    planned = []
    for check in suite.checks.values():
        if check.edition is not None and check.edition != edition:
            continue
        scopes: list[ProviderInfo | None] = (list(_certified(info, providers))
                                             if check.per_provider else [None])
        for provider in scopes:
            decides = tuple(
                r for r in check.rules
                if r in rules and not_applicable(rules[r], edition, info, provider) is None
                and (selected is None or r in selected)
            )
            if decides:
                planned += [PlannedCheck(check, provider, decides, shard)
                            for shard in range(max(1, check.shards))]
    return planned


def _scopes(suite: Suite, info: TargetInfo,
            providers: frozenset[str] | None = None) -> dict[str, list[str | None]]:
    """Where each rule's results live: per (chosen) provider, and/or for the whole target
    (None)."""
    out: dict[str, list[str | None]] = {r.id: [] for r in suite.rules}
    names: list[str | None] = [p.name for p in _certified(info, providers)]
    for check in suite.checks.values():
        if check.supplementary:
            continue  # it adds failures to the cells other checks decide, never a cell
        for rule_id in check.rules:
            keys = names if check.per_provider else [None]
            for key in keys:
                if rule_id in out and key not in out[rule_id]:
                    out[rule_id].append(key)
    for keys in out.values():
        if not keys:
            keys.append(None)  # decided by no check: one target-wide not-run
    return out


def cells(suite: Suite, info: TargetInfo, edition: Edition, selected: frozenset[str] | None,
          chosen: frozenset[str] | None = None) -> Table:
    """Every (rule, provider) cell of the certificate, with what is known before running:
    not-applicable with its reason, or not-run when deselected; empty cells wait for checks.
    Providers not ``chosen`` (``--provider``) have no cells."""
    providers = {p.name: p for p in info.providers}
    scopes = _scopes(suite, info, chosen)
    table: Table = {}
    for rule in suite.rules:
        for key in scopes[rule.id]:
            reason = not_applicable(rule, edition, info, providers.get(key) if key else None)
            if reason is not None:
                table[rule.id, key] = [Evidence(Outcome.NOT_APPLICABLE, reason)]
            elif selected is not None and rule.id not in selected:
                table[rule.id, key] = [Evidence(Outcome.NOT_RUN, "deselected (--rule)")]
            else:
                table[rule.id, key] = []
    return table
