"""Every rule family is differential: the ci campaign (the budget default ``certify`` fuzzes
with) catches a zoo entry of each family, names the rule it breaks, shrinks it and saves a
replay that shows it again; the reference runs the new operations without a divergence."""

from __future__ import annotations

from pathlib import Path

import pytest
from target_wrappers import Wrapped, patched

from subagent_tck.conformance.core.target import Target
from subagent_tck.fuzz.campaign import replay
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.step import Step
from subagent_tck.spec import RULES_BY_ID, Edition, ErrorCode, PresentationMode, TckError

from .conftest import ci_campaign, run_steps, zoo_module

#: family -> zoo entries its differential checks must catch (the entry's BREAKS is named)
CAUGHT = {
    "TF": ["union_of_restrictions"],
    "PE": ["empty_persona_ignored"],
    "DE": ["cap_refuses_equal"],
    "CA": ["descriptor_controls_ungated", "fallback_provider"],
    "FR": ["no_rollback_on_bad_template"],
    "EN": ["request_persona_accepted", "preset_lookup_falls_back"],
    "ST": [
        "tool_exposes_provider_param", "tool_outlives_provider", "wording_ignores_fork",
        "duplicate_tool_name_replaces", "cap_mounted_without_depth_limit", "at_cap_hides_tool",
        "partial_output_as_success",
    ],
    "SP": ["spawn_policies_united"],
    "MO": ["child_runs_on_parent_model"],
}
CASES = [(family, name) for family, names in CAUGHT.items() for name in names]


def test_every_family_has_an_entry_the_campaign_must_catch() -> None:
    families = {rule.split("-")[0] for rule in RULES_BY_ID}
    assert families == set(CAUGHT)


@pytest.mark.parametrize(("family", "name"), CASES)
def test_the_ci_campaign_catches_a_zoo_entry_of_each_family_and_names_its_rule(
    at_root: Path, tmp_path: Path, family: str, name: str,
) -> None:
    module = zoo_module(name)
    breaks: str = module.BREAKS
    assert breaks.startswith(family)
    edition = RULES_BY_ID[breaks].edition
    target = module.provider()
    try:
        result = ci_campaign(target, 0, tmp_path, editions=(edition,) if edition else ())
        assert result.finding is not None, f"{name}: no divergence in {result.examples} examples"
        assert result.finding.rule == breaks, result.report()
        assert len(result.counterexample) <= 8, result.report()  # shrunk
        assert result.replay_path is not None
        assert replay(module.provider(), result.replay_path).reproduced, result.report()
    finally:
        target.close()


_ROOT_CALL = Step(op="call_tool", args={"agent": "root", "name": "subagent"})


@pytest.mark.parametrize("steps", [
    [Step(op="load_tool", args={"name": "subagent", "provider": "spawn"}),
     Step(op="remove_provider", args={"provider": "spawn"}),
     Step(op="add_provider", args={"provider": "spawn"}), _ROOT_CALL],
    [Step(op="load_tool", args={"name": "subagent", "provider": "spawn"}),
     Step(op="set_host_depth", args={"depth": 0}), _ROOT_CALL,
     Step(op="set_host_depth", args={"depth": 2}), _ROOT_CALL],
    [Step(op="load_tool", args={"name": "subagent", "provider": "acp",
                                "max_depth": {"json": "2"}}),
     Step(op="load_tool", args={"name": "subagent", "provider": "spawn",
                                "max_depth": {"json": "1.5"}}),
     Step(op="load_tool", args={"name": "delegate", "provider": "fork",
                                "max_depth": "provider-managed"}),
     Step(op="call_tool", args={"agent": "root", "name": "delegate", "stop": "error"})],
])
def test_the_reference_keeps_lockstep_through_the_subagent_tools_lifecycle(
    reference: Target, steps: list[Step],
) -> None:
    divergence = run_steps(reference, Setup(), steps)
    assert divergence is None, str(divergence)


def test_a_tool_that_reads_the_host_depth_once_diverges_at_the_call_after_the_change(
    at_root: Path,
) -> None:
    target = zoo_module("tool_ignores_live_depth").provider()
    steps = [Step(op="load_tool", args={"name": "subagent", "provider": "spawn"}),
             Step(op="set_host_depth", args={"depth": 0}), _ROOT_CALL]
    try:
        divergence = run_steps(target, Setup(), steps)
    finally:
        target.close()
    assert divergence is not None and divergence.finding.step == 3
    assert divergence.finding.rule == "ST-06"


def test_a_resume_on_a_provider_without_the_descriptors_control_is_ca_01(at_root: Path) -> None:
    target = zoo_module("descriptor_controls_ungated").provider()
    steps = [
        Step(op="start", args={"parent": "root", "provider": "spawn",
                               "controls": {"preset": "reviewer"}, "label": "c1"}),
        Step(op="rebind", args={"session": "c1", "provider": "acp", "label": "r1"}),
    ]
    try:
        setup = Setup(edition=Edition.PRESET_COMPOSITION, tools=("read", "search"))
        divergence = run_steps(target, setup, steps)
    finally:
        target.close()
    assert divergence is not None and divergence.finding.rule == "CA-01", divergence


def _no_preset_field(inner: Target) -> Wrapped:
    """The reference, refusing a start request's ``preset`` in the request-controls edition
    (DSH's answer: that edition defines no such field)."""

    def refusing(deployment: object) -> object:
        start = deployment.start  # type: ignore[attr-defined]

        def refuse(request: object) -> object:
            if getattr(request, "preset", None) is not None:
                raise TckError(ErrorCode.UNKNOWN_PRESET, "this edition has no preset field")
            return start(request)

        return refuse

    return patched(inner, "start", refusing)


def test_a_preset_refused_in_the_request_controls_edition_is_the_targets_choice(
    reference: Target,
) -> None:
    steps = [Step(op="start", args={"parent": "root", "provider": "spawn",
                                    "controls": {"preset": "reviewer"}, "label": "c1"})]
    target = _no_preset_field(reference)
    assert run_steps(target, Setup(edition=Edition.REQUEST_CONTROLS), steps) is None
    divergence = run_steps(target, Setup(edition=Edition.PRESET_COMPOSITION), steps)
    assert divergence is not None and "UNKNOWN_PRESET" in str(divergence)


def _first_rule(name: str, setup: Setup, *steps: Step) -> str | None:
    target = zoo_module(name).provider()
    try:
        divergence = run_steps(target, setup, list(steps))
    finally:
        target.close()
    assert divergence is not None
    return divergence.finding.rule


def test_a_child_that_carries_another_presets_persona_is_en_01_in_either_edition(
    at_root: Path,
) -> None:
    # preset_lookup_falls_back composes a capitalised preset from the first one; in
    # request-controls the request's toolFilter composes, so only the persona shows the fallback
    start = Step(op="start", args={"parent": "root", "provider": "spawn", "label": "c1",
                                   "controls": {"preset": "Auditor", "toolFilter": {"allow": []}}})
    setup = Setup(edition=Edition.REQUEST_CONTROLS, tools=("read", "search"))
    assert _first_rule("preset_lookup_falls_back", setup, start) == "EN-01"


def test_a_start_refused_for_a_name_only_another_preset_lists_is_en_01(at_root: Path) -> None:
    # the fallback preset's filter allows read and search, neither registered: INVALID_TOOL_FILTER
    # naming them, which the asked preset (deny web) never mentions
    start = Step(op="start", args={"parent": "root", "provider": "spawn", "label": "c1",
                                   "controls": {"preset": "Auditor"}})
    assert _first_rule("preset_lookup_falls_back", Setup(tools=("web",)), start) == "EN-01"


def test_a_start_refused_for_its_own_presets_name_is_not_blamed_on_another_preset(
    at_root: Path,
) -> None:
    # filter_checked_against_parent_view refuses the reviewer preset for its own names (read,
    # search outside the parent's view), while the stale preset is always refused: still TF-08
    steps = [Step(op="restrict", args={"agent": "root", "value": {"deny": ["read"]},
                                       "label": "root.r1"}),
             Step(op="start", args={"parent": "root", "provider": "spawn", "label": "c1",
                                    "controls": {"preset": "reviewer"}})]
    assert _first_rule("filter_checked_against_parent_view",
                       Setup(tools=("read", "search")), *steps) == "TF-08"


def test_a_lookup_of_run_code_that_drifts_from_a_right_view_is_tf_12(at_root: Path) -> None:
    lookup = Step(op="lookup", args={"agent": "root", "name": "run_code"})
    setup = Setup(mode=PresentationMode.BOTH)
    assert _first_rule("tool_lookup_by_identity", setup, lookup) == "TF-12"
