"""The SP checks: they pass on the reference in both editions and are not applicable where no
provider advertises spawnPolicy (tiny runner, tests/conformance/checks/tiny_runner.py); each
zoo entry that breaks SP-01 or SP-02 fails it and nothing else (test_zoo_families.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from target_wrappers import Wrapped

from subagent_tck.conformance.core.dialect import ChannelKind
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    RestrictionChannel,
    TargetInfo,
    ToolSpec,
)
from subagent_tck.conformance.engine.checks import spawn_policy
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.builtin import (
    ReferenceDeployment,
    ReferenceTarget,
    reference_target,
)
from subagent_tck.spec import Edition, ErrorCode, TckError

from .tiny_runner import checks_of, reference_passes, run
from .zoo_cases import assert_judged_where_advertised, entry


def test_every_spawn_policy_check_passes_on_the_reference_in_both_editions() -> None:
    verdicts = reference_passes("spawn_policy", "spawn_policy_offered", max_examples=3)
    outcomes = {(rule, provider, edition): outcome
                for (rule, provider, edition), outcome in verdicts.outcomes.items()}
    for edition in ("preset-composition", "request-controls"):
        assert outcomes["SP-01", "spawn", edition] == "pass"
        assert outcomes["SP-02", "spawn", edition] == "pass"
        assert ("SP-01", "acp", edition) not in outcomes  # acp advertises no spawnPolicy


def test_a_provider_that_advertises_spawn_policy_is_judged_beside_one_that_does_not() -> None:
    assert_judged_where_advertised("spawn_policy", "SP-01", advertises="spawn", lacks="fork")


def test_a_refusal_names_its_preset_by_detail_or_as_a_whole_word_of_its_message() -> None:
    assert spawn_policy.names_preset(TckError(ErrorCode.SPAWN_DENIED, "no", {"preset": "Read"}),
                                     "Read")
    assert not spawn_policy.names_preset(TckError(ErrorCode.SPAWN_DENIED, "no",
                                                  {"preset": "read"}), "Read")
    assert spawn_policy.names_preset(TckError(ErrorCode.SPAWN_DENIED, "refused 'Read'"), "Read")
    assert not spawn_policy.names_preset(TckError(ErrorCode.SPAWN_DENIED, "refused read_file"),
                                         "read")


@pytest.mark.parametrize("seed", [0, 7])
def test_a_gate_that_admits_a_capped_start_on_its_cap_alone_fails_sp_01_through_a_case_with_a_cap(
        seed: int) -> None:
    # spawn_policy_skipped_under_cap passed every SP check while no case combined a policy with
    # a maxDepth (only the campaign found it, at the seeds that drew it); the partition
    # under-a-cap is drawn from a hand-written case at every seed
    verdicts = run(entry("spawn_policy_skipped_under_cap").provider(), checks_of("spawn_policy"),
                   editions=[Edition.PRESET_COMPOSITION], max_examples=1, seed=seed)
    assert "SP-01" in verdicts.failed_rules(), verdicts.explain()
    assert any("with maxDepth" in f.message for f in verdicts.failures if f.rule == "SP-01")


class _RootPolicyDropped(ReferenceDeployment):
    """A root started from a preset gets its persona and tool filter, but not its spawn policy
    (an adapter that maps only what the tool-filter rules read)."""

    def start_root_from(self, preset: object) -> None:
        known = self.host.presets.get(preset) if isinstance(preset, str) else None
        if known is not None and known.spawn_policy is not None:
            self.host.presets[preset] = dataclasses.replace(known, spawn_policy=None)
            try:
                return super().start_root_from(preset)
            finally:
                self.host.presets[preset] = known
        return super().start_root_from(preset)


@pytest.mark.parametrize("seed", [0, 3])
def test_a_root_started_from_a_preset_without_its_spawn_policy_fails_sp_01(seed: int) -> None:
    target = reference_target()
    target.deployment_class = _RootPolicyDropped
    verdicts = run(target, ["spawn-policy-root"], editions=[Edition.PRESET_COMPOSITION],
                   max_examples=2, seed=seed)
    assert verdicts.failed_rules() == {"SP-01"}, verdicts.explain()
    assert all("the root started from a preset with the policy" in f.message
               for f in verdicts.failures), verdicts.explain()


def test_the_root_channel_check_leaves_its_partition_to_targets_that_declare_the_channel(
) -> None:
    class LiveOnly(ReferenceTarget):
        def info(self) -> TargetInfo:
            return super().info().model_copy(update={
                "restrictionChannels": [RestrictionChannel(kind=ChannelKind.LIVE)]})

    for target, inapplicable in ((LiveOnly(), True), (reference_target(), False)):
        cert = certify(target, RunConfig(target_spec="live-only", seed=0, rules=("SP-01",)))
        assert cert.rule("SP-01").outcome is Outcome.PASS
        part = next(p for p in cert.rule("SP-01").partitions
                    if p.check == "spawn-policy-root" and p.name == "root-preset")
        assert bool(part.inapplicable_for) is inapplicable and part.drawn is not inapplicable


@pytest.mark.parametrize("seed", [0, 3])
def test_the_root_channel_alone_fails_sp_02_on_a_tool_that_lists_every_preset(seed: int) -> None:
    verdicts = run(entry("tool_lists_every_preset").provider(), ["spawn-policy-offered-root"],
                   editions=[Edition.PRESET_COMPOSITION], max_examples=2, seed=seed)
    assert verdicts.failed_rules() == {"SP-02"}, verdicts.explain()
    assert all("the requests of the root started from a preset with the policy" in f.message
               for f in verdicts.failures), verdicts.explain()
    passed = run(reference_target(), ["spawn-policy-offered-root"],
                 editions=[Edition.PRESET_COMPOSITION], max_examples=2, seed=seed)
    assert not passed.bad(), passed.explain()


class _OwnDelegationTool(Wrapped):
    """The reference with a delegation tool of its own in every deployment, as a runtime's
    built-in (Claude Code's Agent): its description lists the presets it starts (``every``:
    each preset of the deployment, whatever a policy says; else none); ``declared``: the
    provider names it as its ``delegationTool``."""

    def __init__(self, every: bool, declared: bool) -> None:
        super().__init__(reference_target())
        self.every, self.declared = every, declared

    def info(self) -> TargetInfo:
        info = self.inner.info()
        if not self.declared:
            return info
        return info.model_copy(update={"providers": [
            p.model_copy(update={"delegationTool": "hand_off"}) if p.name == "spawn" else p
            for p in info.providers]})

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
        deployment = self.inner.deploy(config, gateway)
        listed = ", ".join(p.name for p in config.presets) if self.every else "none"
        deployment.register_tool(ToolSpec(name="hand_off",
                                          description=f"starts a child of one of: {listed}"))
        return deployment


@pytest.mark.parametrize("seed", [0, 5])
def test_a_providers_own_delegation_tool_is_read_as_sent_though_every_other_check_leaves_it_out(
        seed: int) -> None:
    # a runtime's own tool is left out of what the checks read (own_tools.py); SP-02 reads the
    # one the provider names as its delegation tool in the requests as the target sent them
    def sp02(every: bool, declared: bool) -> Any:
        target = _OwnDelegationTool(every, declared)
        cert = certify(target, RunConfig(target_spec="own-delegation", seed=seed,
                                         edition=Edition.PRESET_COMPOSITION, rules=("SP-02",)))
        assert cert.target_tools == ["hand_off"], cert.target_tools
        return cert.rule("SP-02")

    listed = sp02(every=True, declared=True)
    assert listed.outcome is Outcome.FAIL, listed
    assert any("hand_off" in f.message for f in listed.failures), listed.failures
    assert sp02(every=False, declared=True).outcome is Outcome.PASS
    # undeclared, the tool is the target's own and SP-02 does not read it
    assert sp02(every=True, declared=False).outcome is Outcome.PASS
