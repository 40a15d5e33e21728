"""TF-01 for a runtime's own delegation tool
(conformance/engine/checks/delegation_tool_filter.py): a child's filter decides whether the
child is offered the tool, allow before deny, as for any global tool (docs/rules.md#TF-01)."""

from __future__ import annotations

from typing import Any

import pytest
from target_wrappers import OwnTool

from subagent_tck.conformance.core.certificate import RuleResult
from subagent_tck.conformance.core.dialect import ChannelKind, RestrictionChannel
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import TargetInfo
from subagent_tck.conformance.engine.checks.delegation_tool_filter import TF01, restriction
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.spec import Edition

CHECK = "delegation-tool-filtered"


def _tf01(target: OwnTool, seed: int = 0, edition: Edition = Edition.PRESET_COMPOSITION
          ) -> RuleResult:
    cert = certify(target, RunConfig(target_spec="own-tool", seed=seed, edition=edition,
                                     rules=("TF-01",)))
    return next(r for r in cert.rules if r.id == "TF-01")


def _mine(result: RuleResult) -> list[str]:
    return [f.message for f in result.failures if f.check == CHECK]


@pytest.mark.parametrize(("seed", "edition"), [(0, Edition.PRESET_COMPOSITION),
                                               (7, Edition.REQUEST_CONTROLS)])
def test_a_tool_each_filter_decides_passes_with_every_partition_drawn(
        seed: int, edition: Edition) -> None:
    result = _tf01(OwnTool(), seed, edition)
    assert result.outcome is Outcome.PASS, result.failures
    drawn = {p.name: p.drawn for p in result.partitions if p.check == CHECK}
    assert drawn == {p.name: True for p in TF01}


def test_a_tool_offered_whatever_the_filter_fails_where_a_list_withholds_it() -> None:
    result = _tf01(OwnTool(filtered=False))
    assert result.outcome is Outcome.FAIL
    messages = _mine(result)
    assert messages and all("must not be offered the provider's delegation tool hand_off"
                            in m for m in messages)


def test_a_tool_whose_deny_entry_is_ignored_fails_where_a_deny_list_names_it() -> None:
    result = _tf01(OwnTool(filtered="allow-only"), seed=3)
    assert result.outcome is Outcome.FAIL
    messages = _mine(result)
    assert messages and all("'deny': [" in m and "hand_off" in m.split("'deny': [")[1]
                            for m in messages)


def test_the_rule_is_decided_without_the_check_where_no_delegation_tool_is_declared() -> None:
    result = _tf01(OwnTool(declared=False))
    parts = {p.name for p in result.partitions if p.check == CHECK and not p.drawn}
    assert parts == {p.name for p in TF01}
    assert result.outcome is Outcome.PASS


class _Only(OwnTool):
    """A runtime whose only restriction channel is of ``kind``."""

    def __init__(self, kind: ChannelKind, **options: Any) -> None:
        super().__init__(**options)
        self.kind = kind

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={"restrictionChannels": [
            RestrictionChannel(kind=self.kind)]})


def test_a_tool_no_unfiltered_child_is_offered_leaves_the_partitions_inexpressible() -> None:
    result = _tf01(_Only(ChannelKind.CHILD, every=False))
    why = {p.name: p.inexpressible for p in result.partitions if p.check == CHECK}
    assert set(why) == {p.name for p in TF01}
    assert all(w and "no filter through a child's preset (toolFilter) can be what withholds "
               "it" in w for w in why.values()), why
    assert not _mine(result)


@pytest.mark.parametrize(("kind", "scope"), [(ChannelKind.CHILD, "a child"),
                                             (ChannelKind.ROOT, "the root")])
def test_a_filter_through_each_channel_is_judged_on_the_scope_it_reaches(
        kind: ChannelKind, scope: str) -> None:
    messages = _mine(_tf01(_Only(kind, filtered=False)))
    assert messages and all(m.startswith(f"{scope} with") for m in messages)


def test_the_filter_puts_the_tool_where_the_case_says() -> None:
    case = {"tools": ["a", "b"], "allow": ["a"], "own_allow": 0, "deny": ["b"],
            "own_deny": None}
    assert restriction(case, "T") == {"allow": ["T", "a"], "deny": ["b"]}
