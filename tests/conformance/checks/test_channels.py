"""Restriction channels (conformance/engine/checks/_channels.py, docs/driver-api.md#dialect):
a TF rule is not applicable only when nothing the target declares can express it; its cases
go through every declared channel, and a channel that does not do what it carries fails the
rule."""

from __future__ import annotations

from typing import Any

from subagent_tck.conformance.core.dialect import ChannelKind, RestrictionChannel
from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.engine.checks._channels import Channel, placements
from subagent_tck.conformance.transports.builtin import ReferenceDeployment, ReferenceTarget
from subagent_tck.spec import Edition, ErrorCode, TckError

from .tiny_runner import run

TF_CHANNEL_CHECKS = ["tool-filter-allow-before-deny", "tool-filter-intersection",
                     "tool-filter-no-op-refused", "tool-filter-unknown-names",
                     "tool-filter-live-deny", "tool-filter-live-allow",
                     "tool-filter-live-removal", "tool-filter-lift-on-dispose"]
TF_CHANNEL_RULES = {"TF-01", "TF-02", "TF-07", "TF-08", "TF-09", "TF-10", "TF-11", "TF-14"}


def channel(kind: ChannelKind, *lists: str) -> Channel:
    declared = RestrictionChannel(kind=kind, **({"lists": list(lists)} if lists else {}))
    return Channel(declared, Edition.PRESET_COMPOSITION, "spawn")


def shapes(channels: list[Channel], restrictions: list[Any]) -> list[list[str]]:
    return [[c.kind.value for c, _ in p.parts] for p in placements(channels, restrictions)]


def test_one_restriction_goes_through_every_channel_that_carries_its_lists() -> None:
    every = [channel(k) for k in ChannelKind]
    assert shapes(every, [{"allow": ["a"]}]) == [["live"], ["child"], ["root"], ["permission"]]
    deny_only = [channel(ChannelKind.PERMISSION, "deny"), channel(ChannelKind.ROOT)]
    assert shapes(deny_only, [{"allow": ["a"], "deny": None}]) == [["root"]]
    assert shapes(deny_only, [{"deny": ["a"]}]) == [["root"], ["permission"]]


def test_several_restrictions_stack_live_or_on_a_composed_scope_with_permission_rules() -> None:
    rules = [{"allow": ["a"]}, {"deny": ["b"]}]
    every = [channel(k) for k in ChannelKind]
    assert shapes(every, rules) == [["live", "live"], ["child", "permission"],
                                    ["root", "permission"], ["permission", "permission"]]
    assert shapes([channel(ChannelKind.CHILD), channel(ChannelKind.ROOT)], rules) == []


class _Declaring(ReferenceTarget):
    """The reference, declaring only ``channels`` and refusing a live restriction as a runtime
    without one does (``UNSUPPORTED_OPERATION``)."""

    def __init__(self, channels: list[RestrictionChannel], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.channels = channels

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={"restrictionChannels": self.channels})


class _NoLive(ReferenceDeployment):
    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise TckError(ErrorCode.UNSUPPORTED_OPERATION, "no live restrictions here")


class _RootIgnored(ReferenceDeployment):
    def start_root_from(self, preset: Any) -> None:
        return None  # the bug taken in: the root's definition restricts nothing


def _only(kind: ChannelKind, deployment: type[ReferenceDeployment]) -> _Declaring:
    target = _Declaring([RestrictionChannel(kind=kind)])
    target.deployment_class = deployment
    return target


def test_a_target_without_live_restrictions_has_its_tf_rules_built_through_its_child_channel(
) -> None:
    verdicts = run(_only(ChannelKind.CHILD, _NoLive), TF_CHANNEL_CHECKS, max_examples=2,
                   editions=[Edition.PRESET_COMPOSITION])
    outcomes = {rule: outcome for (rule, _, _), outcome in verdicts.outcomes.items()}
    assert {r for r, o in outcomes.items() if o == "pass"} == TF_CHANNEL_RULES - {"TF-02",
                                                                                  "TF-14"}
    # several restrictions on one scope and lifting one: nothing declared can express them
    assert outcomes["TF-02"] == outcomes["TF-14"] == "n/a", verdicts.explain()


def test_the_root_channel_whose_definition_restricts_nothing_fails_the_rules_it_carries(
) -> None:
    verdicts = run(_only(ChannelKind.ROOT, ReferenceDeployment), ["tool-filter-allow-before-deny"],
                   max_examples=2, editions=[Edition.PRESET_COMPOSITION])
    assert not verdicts.bad(), verdicts.explain()
    broken = run(_only(ChannelKind.ROOT, _RootIgnored), ["tool-filter-allow-before-deny",
                                                         "tool-filter-no-op-refused"],
                 max_examples=2, editions=[Edition.PRESET_COMPOSITION])
    assert broken.failed_rules() == {"TF-01", "TF-07"}, broken.explain()
    assert any("the root's own definition" in f.message for f in broken.failures)
