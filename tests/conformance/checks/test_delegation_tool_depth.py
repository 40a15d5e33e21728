"""ST-06 and ST-08 for a runtime's own delegation tool
(conformance/engine/checks/delegation_tool_depth.py): a start without maxDepth is a call of the
tool capped by the host depth setting as it stands at the call, and a child at its cap is told
to work directly, once (docs/rules.md#ST-06, docs/rules.md#ST-08)."""

from __future__ import annotations

import pytest
from target_wrappers import OwnTool

from subagent_tck.conformance.core.certificate import RuleResult
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.spec import Edition


def _rule(target: OwnTool, rule: str, seed: int = 0,
          edition: Edition = Edition.PRESET_COMPOSITION) -> RuleResult:
    cert = certify(target, RunConfig(target_spec="own-tool", seed=seed, edition=edition,
                                     rules=(rule,)))
    return next(r for r in cert.rules if r.id == rule)


def _own(result: RuleResult, check: str) -> dict[str, tuple[bool, str | None]]:
    return {p.name: (p.drawn, p.inexpressible) for p in result.partitions if p.check == check}


@pytest.mark.parametrize("seed", [0, 5, 11, 23])
def test_a_tool_capped_by_the_live_setting_passes_st_06_and_names_what_it_cannot_set_up(
        seed: int) -> None:
    st06 = _rule(OwnTool(setting="live"), "ST-06", seed)
    assert st06.outcome is Outcome.PASS, st06.failures
    parts = _own(st06, "delegation-tool-live-default-cap")
    assert parts["own-tool-raised-setting"][0] and parts["own-tool-lowered-setting"][0]
    assert "DE-10's direct start" in (parts["own-tool-initial-setting"][1] or "")
    assert "no step of the kit" in (parts["own-tool-dropped-mid-turn"][1] or "")


def test_a_tool_capped_by_the_setting_the_deployment_was_made_with_fails_st_06() -> None:
    st06 = _rule(OwnTool(setting="frozen"), "ST-06")
    assert st06.outcome is Outcome.FAIL
    assert [f.message for f in st06.failures] == [
        "a start of the agent at depth 2 (a call of the tool) was refused: child depth 2 is "
        "greater than maxDepth 1; the start was refused and nothing was created"]


def test_an_unbounded_tool_fails_st_06_where_the_setting_caps_the_grandchild_and_after_it_drops(
        ) -> None:
    st06 = _rule(OwnTool(), "ST-06")
    assert st06.outcome is Outcome.FAIL
    assert [f.message for f in st06.failures] == [
        "a start of the agent at depth 3 (depth 3 under the host depth setting 2): accepted, "
        "expected a refusal",
        "a start of the agent at depth 3 (depth 3 under the host depth setting 2): no agent of "
        "it may run",
        "a start of the second agent at depth 2 (depth 2 under the host depth setting lowered "
        "to 1): accepted, expected a refusal",
        "a start of the second agent at depth 2 (depth 2 under the host depth setting lowered "
        "to 1): no agent of it may run"]


@pytest.mark.parametrize("seed", range(4))
def test_a_tool_capped_at_a_number_whatever_the_setting_fails_st_06_at_every_seed(
        seed: int) -> None:
    assert _rule(OwnTool(setting=3), "ST-06", seed).outcome is Outcome.FAIL


@pytest.mark.parametrize("seed", [0, 3])
def test_a_child_at_its_cap_told_once_to_work_directly_passes_st_08(seed: int) -> None:
    # (the notice rides on the start's persona: the request-controls edition's)
    st08 = _rule(OwnTool(notice=True), "ST-08", seed, Edition.REQUEST_CONTROLS)
    assert st08.outcome is Outcome.PASS, st08.failures
    parts = _own(st08, "delegation-tool-at-cap-notice")
    assert all(parts[name][0] for name in ("own-tool-notice-at-cap", "own-tool-notice-once",
                                           "own-tool-runtime-context-off"))
    assert "fixed for the child's life" in (parts["own-tool-cap-changed"][1] or "")


def test_a_child_at_its_cap_given_no_notice_fails_st_08() -> None:
    st08 = _rule(OwnTool(), "ST-08", 0, Edition.REQUEST_CONTROLS)
    assert st08.outcome is Outcome.FAIL
    assert [f.message for f in st08.failures] == [
        "a child at its cap (maxDepth 1) must be told in its first request to do the work "
        "directly (a line a child below its cap, maxDepth 2, is not given)"]


def test_a_notice_given_with_the_runtime_context_off_fails_st_08() -> None:
    st08 = _rule(OwnTool(notice="always"), "ST-08", 0, Edition.REQUEST_CONTROLS)
    assert [f.message for f in st08.failures] == [
        "with the runtime's context off, a child at its cap must not be told to work directly"]


def test_without_a_declared_delegation_tool_st_06_and_st_08_are_not_applicable() -> None:
    for rule in ("ST-06", "ST-08"):
        assert _rule(OwnTool(declared=False), rule).outcome is Outcome.NOT_APPLICABLE


def test_a_notice_appended_again_to_each_later_request_fails_st_08() -> None:
    st08 = _rule(OwnTool(notice="again"), "ST-08", 0, Edition.REQUEST_CONTROLS)
    assert [f.message for f in st08.failures] == [
        "the notice must not be appended again to the child's later request while its cap and "
        "depth are unchanged"]
